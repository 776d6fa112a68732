/* test_prefixes.c - every prefix of every captured frame parses inside its bounds.
 *
 * For each frame of every bundled sample and every real capture in
 * ../shared/captures, the frame cut at each length 0..caplen is copied into a
 * heap block of exactly that size (so AddressSanitizer traps any over-read)
 * and parsed.  Everything the parse reports must lie inside the prefix, and
 * a cut frame must say it was cut.
 */
#include <dirent.h>
#include <pcap/pcap.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fields.h"
#include "packet.h"
#include "test_support.h"

static unsigned long long frames_checked, prefixes_checked;

static void check_bounds(const struct ib_packet *p, size_t len)
{
    for (unsigned i = 0; i < p->diags.count; i++)
        if (p->diags.items[i].offset > len)
            fail_msg("diagnostic %s at offset %u past the %zu bytes given",
                     ib_diag_info(p->diags.items[i].id)->name, p->diags.items[i].offset, len);
    assert_true(p->ib_len <= len);
    for (size_t i = 0; i < ib_field_count; i++) {
        struct ib_field_value v;
        if (!ib_field_get(&ib_fields[i], p, &v))
            continue;
        uint64_t end = (uint64_t)ib_field_frame_offset(&ib_fields[i], p) + ib_fields[i].wire_len;
        if (end > len)
            fail_msg("field %s ends at %llu past the %zu bytes given", ib_fields[i].abbrev,
                     (unsigned long long)end, len);
    }
}

static void check_frame(int linktype, const uint8_t *data, size_t caplen, size_t wirelen)
{
    struct ib_packet p;
    for (size_t len = 0; len <= caplen; len++) {
        uint8_t *copy = ts_exact_copy(data, len);
        /* Every prefix keeps the frame's wire length, as a snap length would. */
        enum ib_frame_result r = ib_parse_frame(NULL, (uint32_t)linktype, copy, len, wirelen, &p);
        if (r == IB_FRAME_IB) {
            check_bounds(&p, len);
            /* A frame cut below its wire length says so, and only such a frame. */
            if (ib_diag_has(&p.diags, IB_DIAG_SNAPLEN) != (len < wirelen))
                fail_msg("%zu of %zu bytes: snaplen diagnostic %s", len, wirelen,
                         len < wirelen ? "missing" : "on a whole frame");
        }
        free(copy);
        prefixes_checked++;
    }
    frames_checked++;
}

static void check_capture(const char *path)
{
    char err[PCAP_ERRBUF_SIZE];
    pcap_t *pc = pcap_open_offline(path, err);
    if (!pc)
        fail_msg("%s: %s", path, err);
    int linktype = pcap_datalink(pc);
    struct pcap_pkthdr *hdr;
    const u_char *data;
    while (pcap_next_ex(pc, &hdr, &data) == 1)
        check_frame(linktype, data, hdr->caplen, hdr->len);
    pcap_close(pc);
}

/* The captures of dir checked: how many; -1 when there is no dir. */
static int check_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    int files = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        const char *dot = strrchr(e->d_name, '.');
        if (!dot ||
            (strcmp(dot, ".pcap") != 0 && strcmp(dot, ".dump") != 0 && strcmp(dot, ".pcapng") != 0))
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        check_capture(path);
        files++;
    }
    closedir(d);
    return files;
}

static void test_sample_prefixes(void **state)
{
    (void)state;
    int files = check_dir(IBSCOPE_SAMPLES_DIR);
    print_message("samples: %d files, %llu frames, %llu prefixes\n", files, frames_checked,
                  prefixes_checked);
    assert_true(files > 0);
}

static void test_real_capture_prefixes(void **state)
{
    (void)state;
    frames_checked = prefixes_checked = 0;
    int files = check_dir(IBSCOPE_SHARED_CAPTURES_DIR);
    /* The real captures are optional; where their folder is, it holds some. */
    if (files < 0)
        skip();
    assert_true(files > 0);
    print_message("real captures: %d files, %llu frames, %llu prefixes\n", files, frames_checked,
                  prefixes_checked);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sample_prefixes),
        cmocka_unit_test(test_real_capture_prefixes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
