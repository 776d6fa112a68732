/* doctor.c - `ibscope doctor`: does Wireshark load ibscope.so for the user
 * who runs this, and if not, why, and the one command that mends each
 * problem.
 *
 * Wireshark's rules (4.0 to 4.6): a plugin built for major.minor M loads
 * from GLOBAL/M/epan and PERSONAL/M/epan (~/.local/lib/wireshark/plugins);
 * with WIRESHARK_PLUGIN_DIR=D set, from D/M/epan instead of the global
 * folder.  Run as root (or set-ID), Wireshark reads neither the personal
 * folder nor WIRESHARK_PLUGIN_DIR.  Rather than guess the folders, this asks
 * each tshark (`tshark -G folders`), and the verdict is tshark's own
 * (`tshark -G plugins`).
 */
#include "doctor.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "option_help.h"
#include "option_parse.h"
#include "option_table.h"
#include "output_file.h"
#include "printable.h"

#define PLUGIN_FILE  "ibscope.so"
#define TSHARKS_MAX  8
#define TOOL_OUT_MAX 65536
#define LINE_MAX_    1024

/* One tshark and what it said of itself. */
struct wireshark {
    char path[PATH_MAX];
    char version[32];      /* "4.0.17" */
    char mm[16];           /* "4.0": the plugins' folder level */
    char global[PATH_MAX]; /* GLOBAL/M, WIRESHARK_PLUGIN_DIR left out */
    char personal[PATH_MAX];
};

struct doctor {
    FILE *out;
    bool root;
    const char *plugin_dir; /* WIRESHARK_PLUGIN_DIR, or NULL */
    char build[PATH_MAX];   /* the plugins folder beside this ibscope, or "" */
    int problems;
};

enum plugin_state { PLUGIN_MISSING, PLUGIN_UNREADABLE, PLUGIN_READABLE };

static void say(struct doctor *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(struct doctor *d, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfprintf(d->out, fmt, ap);
    va_end(ap);
}

/* A path as a terminal may show it. */
static const char *shown(const char *path, char buf[PRINTABLE_MAX])
{
    printable(path, buf, PRINTABLE_MAX);
    return buf;
}

/* "  problem: WHAT" and "    fix: COMMAND" (COMMAND NULL: no line). */
static void problem(struct doctor *d, const char *what, const char *fix)
{
    d->problems++;
    say(d, "  problem: %s\n", what);
    if (fix)
        say(d, "    fix: %s\n", fix);
}

/* Runs PATH ARG... with standard output and error into out (cut at its
 * size); without WIRESHARK_PLUGIN_DIR when !keep_plugin_dir.  Returns the
 * exit status, or -1 when it could not run. */
static int run_tool(const char *path, const char *const args[], bool keep_plugin_dir, char *out,
                    size_t size)
{
    int fd[2];
    out[0] = '\0';
    if (pipe(fd) != 0)
        return -1;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        close(fd[0]);
        close(fd[1]);
        return -1;
    }
    if (pid == 0) {
        if (!keep_plugin_dir)
            unsetenv("WIRESHARK_PLUGIN_DIR");
        dup2(fd[1], STDOUT_FILENO);
        dup2(fd[1], STDERR_FILENO);
        close(fd[0]);
        close(fd[1]);
        execv(path, (char *const *)args);
        _exit(127);
    }
    close(fd[1]);
    size_t len = 0;
    char chunk[4096];
    ssize_t n;
    /* read to the end, keeping what fits: a full pipe would stall tshark */
    while ((n = read(fd[0], chunk, sizeof chunk)) != 0) {
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            break;
        size_t keep = (size_t)n < size - 1 - len ? (size_t)n : size - 1 - len;
        memcpy(out + len, chunk, keep);
        len += keep;
    }
    out[len] = '\0';
    close(fd[0]);
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* The value of the line "LABEL:   value" of tshark -G folders. */
static bool folder_field(const char *text, const char *label, char *buf, size_t size)
{
    size_t n = strlen(label);
    for (const char *line = text; *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : "") {
        if (strncmp(line, label, n) != 0 || line[n] != ':')
            continue;
        const char *v = line + n + 1;
        v += strspn(v, " \t");
        size_t len = strcspn(v, "\n");
        if (len == 0 || len >= size)
            return false;
        memcpy(buf, v, len);
        buf[len] = '\0';
        return true;
    }
    return false;
}

/* Version and folders from the tshark itself; false when it would not say. */
static bool ask_tshark(struct wireshark *w, char *text)
{
    const char *version[] = { "tshark", "--version", NULL };
    const char *folders[] = { "tshark", "-G", "folders", NULL };
    unsigned major, minor, micro;
    if (run_tool(w->path, version, false, text, TOOL_OUT_MAX) != 0)
        return false;
    const char *at = strstr(text, "(Wireshark) ");
    if (!at || sscanf(at + 12, "%u.%u.%u", &major, &minor, &micro) != 3)
        return false;
    snprintf(w->version, sizeof w->version, "%u.%u.%u", major, minor, micro);
    snprintf(w->mm, sizeof w->mm, "%u.%u", major, minor);
    /* without WIRESHARK_PLUGIN_DIR, which takes the global folder's place */
    return run_tool(w->path, folders, false, text, TOOL_OUT_MAX) == 0 &&
           folder_field(text, "Global Plugins", w->global, sizeof w->global) &&
           folder_field(text, "Personal Plugins", w->personal, sizeof w->personal);
}

/* Each tshark of PATH, once (by its real path). */
static size_t find_tsharks(struct wireshark *w, size_t max)
{
    const char *env = getenv("PATH");
    char path[4096];
    size_t n = 0;
    snprintf(path, sizeof path, "%s", env ? env : "/usr/bin:/bin");
    for (char *save, *dir = strtok_r(path, ":", &save); dir && n < max;
         dir = strtok_r(NULL, ":", &save)) {
        char file[PATH_MAX], real[PATH_MAX];
        int len = snprintf(file, sizeof file, "%s/tshark", *dir ? dir : ".");
        if (len < 0 || (size_t)len >= sizeof file || access(file, X_OK) != 0 ||
            !realpath(file, real))
            continue;
        bool seen = false;
        for (size_t i = 0; i < n; i++)
            seen = seen || strcmp(w[i].path, real) == 0;
        if (!seen)
            snprintf(w[n++].path, sizeof w->path, "%s", real);
    }
    return n;
}

/* FOLDER/epan/ibscope.so into file, and whether this user can read it. */
static enum plugin_state plugin_at(const char *folder, char *file, size_t size)
{
    int n = snprintf(file, size, "%s/epan/" PLUGIN_FILE, folder);
    if (n < 0 || (size_t)n >= size)
        return PLUGIN_MISSING;
    struct stat st;
    if (stat(file, &st) != 0)
        return errno == EACCES ? PLUGIN_UNREADABLE : PLUGIN_MISSING;
    return access(file, R_OK) == 0 ? PLUGIN_READABLE : PLUGIN_UNREADABLE;
}

/* A plugin folder's line: where, what is there, and a problem for an
 * ibscope.so this user cannot read.  Returns its state. */
static enum plugin_state show_folder(struct doctor *d, const char *label, const char *folder,
                                     const char *ignored)
{
    char file[PATH_MAX], f[PRINTABLE_MAX], why[PRINTABLE_MAX + 64], fix[2 * PRINTABLE_MAX + 64];
    enum plugin_state s = plugin_at(folder, file, sizeof file);
    static const char *const words[] = { "no " PLUGIN_FILE, PLUGIN_FILE " not readable by you",
                                         PLUGIN_FILE " readable" };
    say(d, "  %-20s %s/epan: %s%s%s\n", label, shown(folder, f), words[s], ignored ? "; " : "",
        ignored ? ignored : "");
    if (s == PLUGIN_UNREADABLE && !ignored) {
        shown(file, f);
        snprintf(why, sizeof why, "%s cannot be read by you (the file or a folder on its way)", f);
        char dir[PRINTABLE_MAX];
        snprintf(fix, sizeof fix, "sudo chmod a+r %s && sudo chmod a+rx %s/epan", f,
                 shown(folder, dir));
        problem(d, why, fix);
    }
    return s;
}

/* "a/b" into buf; false when it does not fit. */
static bool path_join(char *buf, size_t size, const char *a, const char *b)
{
    int n = snprintf(buf, size, "%s/%s", a, b);
    return n >= 0 && (size_t)n < size;
}

/* path without its last component ("a/b/" -> "a", "b" -> "."). */
static void parent_of(const char *path, char *buf, size_t size)
{
    snprintf(buf, size, "%s", path);
    size_t n = strlen(buf);
    while (n > 1 && buf[n - 1] == '/')
        buf[--n] = '\0';
    char *slash = strrchr(buf, '/');
    if (!slash)
        snprintf(buf, size, ".");
    else if (slash == buf)
        buf[1] = '\0';
    else
        *slash = '\0';
}

/* The command that puts a plugin for this Wireshark where it is read. */
static void install_fix(const struct doctor *d, const struct wireshark *w, char *buf, size_t size)
{
    char built[PATH_MAX], where[PRINTABLE_MAX], from[PRINTABLE_MAX], mm[PATH_MAX];
    if (!*d->build || !path_join(mm, sizeof mm, d->build, w->mm) ||
        plugin_at(mm, built, sizeof built) != PLUGIN_READABLE) {
        snprintf(buf, size,
                 "build it for Wireshark %s in the ibscope source tree (libwireshark-dev of "
                 "%s): cmake -S . -B build && cmake --build build, then ibscope doctor again",
                 w->mm, w->mm);
        return;
    }
    /* root reads only the global folder; a user's own folder needs no sudo */
    shown(d->root ? w->global : w->personal, where);
    snprintf(buf, size, "install -D -m 644 %s %s/epan/" PLUGIN_FILE, shown(built, from), where);
}

/* ibscope.so built for another major.minor beside the folder of this one. */
static int other_versions(struct doctor *d, const struct wireshark *w, const char *folder)
{
    int found = 0;
    char parent[PATH_MAX], sub[PATH_MAX], file[PATH_MAX];
    parent_of(folder, parent, sizeof parent);
    DIR *dir = opendir(parent);
    if (!dir)
        return 0;
    for (struct dirent *e; (e = readdir(dir));) {
        unsigned major, minor;
        char end;
        if (sscanf(e->d_name, "%u.%u%c", &major, &minor, &end) != 2 ||
            strcmp(e->d_name, w->mm) == 0)
            continue;
        if (!path_join(sub, sizeof sub, parent, e->d_name) ||
            plugin_at(sub, file, sizeof file) == PLUGIN_MISSING)
            continue;
        char why[PRINTABLE_MAX + 128], fix[3 * PRINTABLE_MAX], f[PRINTABLE_MAX];
        snprintf(why, sizeof why,
                 "%s is built for Wireshark %u.%u; this is %s, which reads only %s/epan folders",
                 shown(file, f), major, minor, w->version, w->mm);
        install_fix(d, w, fix, sizeof fix);
        problem(d, why, fix);
        found++;
    }
    closedir(dir);
    return found;
}

/* WIRESHARK_PLUGIN_DIR=D is read as D/M/epan: a D that names the M folder,
 * the epan folder or the build folder holds the plugin one level off. */
static bool plugin_dir_level(struct doctor *d, const struct wireshark *w)
{
    char probe[PATH_MAX], right[PATH_MAX], up[PATH_MAX], tails[3][64];
    snprintf(tails[0], sizeof tails[0], "%s", "");
    snprintf(tails[1], sizeof tails[1], "%s", "/epan");
    snprintf(tails[2], sizeof tails[2], "/plugins/%s/epan", w->mm);
    for (size_t i = 0; i < 3; i++) {
        int n = snprintf(probe, sizeof probe, "%s%s/" PLUGIN_FILE, d->plugin_dir, tails[i]);
        if (n < 0 || (size_t)n >= sizeof probe || access(probe, F_OK) != 0)
            continue;
        if (i == 0) { /* D is .../M/epan */
            parent_of(d->plugin_dir, up, sizeof up);
            parent_of(up, right, sizeof right);
        } else if (i == 1) { /* D is .../M */
            parent_of(d->plugin_dir, right, sizeof right);
        } else { /* D is the build folder */
            snprintf(right, sizeof right, "%s/plugins", d->plugin_dir);
        }
        char why[2 * PRINTABLE_MAX + 128], fix[PRINTABLE_MAX + 64], p[PRINTABLE_MAX];
        snprintf(why, sizeof why,
                 "WIRESHARK_PLUGIN_DIR names the wrong level: Wireshark reads "
                 "WIRESHARK_PLUGIN_DIR/%s/epan/" PLUGIN_FILE ", and the plugin is at %s",
                 w->mm, shown(probe, p));
        snprintf(fix, sizeof fix, "export WIRESHARK_PLUGIN_DIR=%s", shown(right, p));
        problem(d, why, fix);
        return true;
    }
    return false;
}

/* Tabs and runs of blanks as one space, as a line of the report shows them. */
static void collapse_blanks(char *s)
{
    char *to = s;
    for (const char *from = s; *from; from++)
        if (!(*from == ' ' || *from == '\t') || (to > s && to[-1] != ' '))
            *to++ = *from == '\t' ? ' ' : *from;
    *to = '\0';
}

/* tshark's own word: is ibscope.so among its plugins? */
static bool loaded(struct doctor *d, const struct wireshark *w, char *text)
{
    const char *plugins[] = { "tshark", "-G", "plugins", NULL };
    char line[LINE_MAX_], shown_line[PRINTABLE_MAX];
    int rc = run_tool(w->path, plugins, true, text, TOOL_OUT_MAX);
    bool found = false;
    for (const char *at = text; *at;) {
        size_t len = strcspn(at, "\n");
        snprintf(line, sizeof line, "%.*s", (int)(len < sizeof line ? len : sizeof line - 1), at);
        at += len + (at[len] == '\n');
        if (strncmp(line, PLUGIN_FILE, strlen(PLUGIN_FILE)) == 0 && rc == 0) {
            collapse_blanks(line);
            say(d, "  tshark -G plugins:   %s\n", shown(line, shown_line));
            found = true;
        } else if (strstr(line, PLUGIN_FILE)) { /* a load error names the file */
            say(d, "  tshark says:         %s\n", shown(line, shown_line));
        }
    }
    if (!found)
        say(d, "  tshark -G plugins:   no %s\n", PLUGIN_FILE);
    return found;
}

/* WIRESHARK_PLUGIN_DIR=D without D/M/epan/ibscope.so: the command that
 * mends it (the global folder has it: D only hides it). */
static void plugin_dir_fix(const struct doctor *d, const struct wireshark *w,
                           enum plugin_state global, char *buf, size_t size)
{
    char built[PATH_MAX], mm[PATH_MAX], p[PRINTABLE_MAX];
    if (global == PLUGIN_READABLE)
        snprintf(buf, size, "unset WIRESHARK_PLUGIN_DIR");
    else if (*d->build && path_join(mm, sizeof mm, d->build, w->mm) &&
             plugin_at(mm, built, sizeof built) == PLUGIN_READABLE)
        snprintf(buf, size, "export WIRESHARK_PLUGIN_DIR=%s", shown(d->build, p));
    else
        install_fix(d, w, buf, size);
}

/* Why a tshark that does not list ibscope.so does not; problems with fixes. */
static void explain(struct doctor *d, const struct wireshark *w, enum plugin_state global,
                    enum plugin_state personal, enum plugin_state dir)
{
    char fix[3 * PRINTABLE_MAX], why[PRINTABLE_MAX + 256], p[PRINTABLE_MAX], at[PATH_MAX];
    int others = other_versions(d, w, w->global) + other_versions(d, w, w->personal);
    if (d->plugin_dir && path_join(at, sizeof at, d->plugin_dir, w->mm))
        others += other_versions(d, w, at);
    install_fix(d, w, fix, sizeof fix);
    if (d->root && global != PLUGIN_READABLE) {
        snprintf(why, sizeof why,
                 "you are root, and Wireshark run as root loads plugins only from its global "
                 "folder (not the personal one, not WIRESHARK_PLUGIN_DIR), which has no "
                 "readable %s; as your normal user, the other folders count too",
                 PLUGIN_FILE);
        problem(d, why, fix);
    } else if (!d->root && d->plugin_dir && dir == PLUGIN_MISSING && !others &&
               !plugin_dir_level(d, w) && personal != PLUGIN_READABLE) {
        snprintf(why, sizeof why,
                 "WIRESHARK_PLUGIN_DIR=%s has no %s/epan/%s, and it takes the global "
                 "folder's place",
                 shown(d->plugin_dir, p), w->mm, PLUGIN_FILE);
        plugin_dir_fix(d, w, global, fix, sizeof fix);
        problem(d, why, fix);
    } else if (!d->root && !d->plugin_dir && global == PLUGIN_MISSING &&
               personal == PLUGIN_MISSING && !others) {
        snprintf(why, sizeof why, "no %s for Wireshark %s in the global or the personal folder",
                 PLUGIN_FILE, w->mm);
        problem(d, why, fix);
    }
}

/* One tshark: its folders, what is in them, its verdict.  True when it
 * loads ibscope.so. */
static bool diagnose(struct doctor *d, struct wireshark *w, char *text)
{
    char p[PRINTABLE_MAX], dir_m[PATH_MAX];
    say(d, "tshark %s", shown(w->path, p));
    if (!ask_tshark(w, text)) {
        say(d, "\n");
        problem(d, "it does not say its version and folders (tshark --version, tshark -G folders)",
                "sudo apt install --reinstall tshark");
        return false;
    }
    say(d, ": Wireshark %s, plugins for %s\n", w->version, w->mm);
    int before = d->problems;
    const char *root = d->root ? "not read: you are root" : NULL;
    enum plugin_state global = show_folder(
        d, "global folder", w->global,
        d->plugin_dir && !d->root ? "not read: WIRESHARK_PLUGIN_DIR takes its place" : NULL);
    enum plugin_state personal = show_folder(d, "personal folder", w->personal, root);
    enum plugin_state dir = PLUGIN_MISSING;
    if (d->plugin_dir) {
        if (path_join(dir_m, sizeof dir_m, d->plugin_dir, w->mm))
            dir = show_folder(d, "WIRESHARK_PLUGIN_DIR", dir_m, root);
    }
    if (loaded(d, w, text))
        return true;
    explain(d, w, global, personal, dir);
    /* a readable ibscope.so tshark would not load: built for another build */
    if (d->problems == before)
        problem(d, "tshark does not load it (tshark says why above, if it does)",
                "rebuild the plugin against this Wireshark (cmake -S . -B build && cmake --build "
                "build in the source tree), then install it again");
    return false;
}

/* Wiresharks this check cannot ask: their own versions, in a sandbox. */
static void sandboxed(struct doctor *d)
{
    const char *home = getenv("HOME");
    char user_flatpak[PATH_MAX];
    snprintf(user_flatpak, sizeof user_flatpak,
             "%s/.local/share/flatpak/app/org.wireshark.Wireshark", home ? home : "");
    if (access("/var/lib/flatpak/app/org.wireshark.Wireshark", F_OK) == 0 ||
        (home && access(user_flatpak, F_OK) == 0))
        say(d, "note: a Flatpak Wireshark (org.wireshark.Wireshark) is installed: it runs its own "
               "Wireshark, in a sandbox, with folders of its own that this check does not see; "
               "ask it: flatpak run --command=tshark org.wireshark.Wireshark -G folders\n");
    if (access("/snap/wireshark", F_OK) == 0)
        say(d, "note: a Snap Wireshark (/snap/wireshark) is installed: it is confined, with its "
               "own version and folders that this check does not see; the plugin is built for "
               "the distribution's Wireshark (apt install wireshark)\n");
}

/* The plugins folder of the build this ibscope comes from (BUILD/bin/ibscope
 * beside BUILD/plugins), for the fixes. */
static void find_build(struct doctor *d)
{
    char exe[PATH_MAX], bin[PATH_MAX], top[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    d->build[0] = '\0';
    if (n <= 0)
        return;
    exe[n] = '\0';
    parent_of(exe, bin, sizeof bin);
    parent_of(bin, top, sizeof top);
    struct stat st;
    int len = snprintf(d->build, sizeof d->build, "%s/plugins", top);
    if (len < 0 || (size_t)len >= sizeof d->build || stat(d->build, &st) != 0 ||
        !S_ISDIR(st.st_mode))
        d->build[0] = '\0';
}

static int run_doctor(FILE *out)
{
    static struct wireshark found[TSHARKS_MAX];
    static char text[TOOL_OUT_MAX];
    struct doctor d = { .out = out, .root = geteuid() == 0 };
    const char *dir = getenv("WIRESHARK_PLUGIN_DIR");
    d.plugin_dir = dir && *dir ? dir : NULL;
    find_build(&d);
    struct passwd *pw = getpwuid(geteuid());
    say(&d, "ibscope doctor: the Wireshark plugin for user %s (uid %u)%s\n", pw ? pw->pw_name : "?",
        (unsigned)geteuid(),
        d.root ? ": root, so Wireshark reads only its global plugin folder" : "");
    size_t n = find_tsharks(found, TSHARKS_MAX);
    bool ok = false;
    if (n == 0)
        problem(&d, "no tshark on PATH (Wireshark's command line)", "sudo apt install tshark");
    for (size_t i = 0; i < n; i++) {
        bool loads = diagnose(&d, &found[i], text);
        ok = ok || (i == 0 && loads); /* the tshark PATH gives decides */
    }
    sandboxed(&d);
    if (ok)
        say(&d, "ok: %s loads %s\n", found[0].path, PLUGIN_FILE);
    else
        say(&d, "not loaded: %d problem%s above, each with its fix\n", d.problems,
            d.problems == 1 ? "" : "s");
    return ok ? 0 : 1;
}

int doctor_main(int argc, char **argv)
{
    struct opt_parser p;
    struct opt_found f;
    enum opt_step step;
    char err[OPT_ERR_MAX];
    bool help = false, operands = false;
    opt_parser_init(&p, &doctor_command, argc, argv);
    while ((step = opt_next(&p, &f, err)) != OPT_STEP_END) {
        if (step == OPT_STEP_ERROR)
            return opt_usage_error(err);
        if (step == OPT_STEP_OPERAND)
            operands = true;
        else
            help = true; /* OPT_HELP, doctor's only option */
    }
    if (help) /* as every command: --help wins over what else is on the line */
        return opt_show_help(&doctor_command);
    if (operands)
        return opt_usage_error("doctor: takes no operands (try ibscope doctor --help)");
    struct output_file out;
    if (!output_open_or_say(&out, NULL))
        return 2;
    int rc = run_doctor(out.fp);
    return output_commit_or_say(&out, NULL) ? rc : 2;
}
