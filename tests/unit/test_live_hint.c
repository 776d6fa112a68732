/* test_live_hint.c - why a watched interface may show no RoCE
 * (analyzer/live/live_hint.c): the RDMA NIC behind an interface, found in a
 * sysfs tree made here, and the status view's line for each reason. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <sys/stat.h>

#include "live_hint.h"

static char root[512];

/* root/IFACE/device/[infiniband/DEV]: as Linux lists a NIC's netdev. */
static void make_iface(const char *iface, const char *dev)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", root, iface);
    assert_int_equal(mkdir(path, 0755), 0);
    snprintf(path, sizeof path, "%s/%s/device", root, iface);
    assert_int_equal(mkdir(path, 0755), 0);
    if (!dev)
        return;
    snprintf(path, sizeof path, "%s/%s/device/infiniband", root, iface);
    assert_int_equal(mkdir(path, 0755), 0);
    snprintf(path, sizeof path, "%s/%s/device/infiniband/%s", root, iface, dev);
    assert_int_equal(mkdir(path, 0755), 0);
}

static void test_rdma_device(void **state)
{
    (void)state;
    char dev[64] = "";
    const char *tmp = getenv("TMPDIR");
    snprintf(root, sizeof root, "%s/ibscope-live-hint-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    assert_non_null(mkdtemp(root));
    make_iface("eth1", "mlx5_0");
    make_iface("eth2", NULL); /* a plain NIC, as Soft-RoCE's rxe rides on */
    assert_true(live_rdma_device(root, "eth1", dev, sizeof dev));
    assert_string_equal(dev, "mlx5_0");
    assert_false(live_rdma_device(root, "eth2", dev, sizeof dev));
    assert_false(live_rdma_device(root, "eth9", dev, sizeof dev));
    assert_false(live_rdma_device(root, "../eth1", dev, sizeof dev));
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -r %s", root);
    assert_int_equal(system(cmd), 0);
}

static void test_hints(void **state)
{
    (void)state;
    char buf[256];
    struct live_quiet q = { "eth1", NULL, true, 0, 0, false };
    live_quiet_hint(&q, buf, sizeof buf);
    assert_non_null(strstr(buf, "no RoCE reached the kernel"));
    q.rdma_dev = "mlx5_0";
    live_quiet_hint(&q, buf, sizeof buf);
    assert_string_equal(buf, "eth1 is a port of mlx5_0, whose RoCE bypasses the kernel: capture "
                             "it another way (docs/live.md, Capturing on real hardware)");
    q.iwarp = true;
    live_quiet_hint(&q, buf, sizeof buf);
    assert_non_null(strstr(buf, "iWARP"));
    q.other_port = 4792;
    live_quiet_hint(&q, buf, sizeof buf);
    assert_string_equal(buf, "RoCEv2 is on UDP port 4792 here: watch with --rocev2-port 4792");
    struct live_quiet other = { "eth1", NULL, false, 12, 0, false };
    live_quiet_hint(&other, buf, sizeof buf);
    assert_non_null(strstr(buf, "none of 12 frames is RoCE"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rdma_device),
        cmocka_unit_test(test_hints),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
