/* Call sites to function, file and line, on rank 0 at MPI_Finalize, with
 * elfutils' libdw (loaded with dlopen, so that no program that links
 * libmpiwatch gains a dependency, and only rank 0 pays for it). Without
 * libdw, the dynamic symbol table (dladdr) gives what it can. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/callsites.h"

#if MW_HAVE_LIBDWFL_H
#include <elfutils/libdwfl.h>

/* The few libdw functions this file uses, looked up at run time. */
struct dw {
    __typeof__(&dwfl_begin) begin;
    __typeof__(&dwfl_linux_proc_report) proc_report;
    __typeof__(&dwfl_report_end) report_end;
    __typeof__(&dwfl_addrmodule) addrmodule;
    __typeof__(&dwfl_module_addrname) addrname;
    __typeof__(&dwfl_module_getsrc) getsrc;
    __typeof__(&dwfl_lineinfo) lineinfo;
    __typeof__(&dwfl_end) end;
    __typeof__(&dwfl_linux_proc_find_elf) find_elf;
    __typeof__(&dwfl_standard_find_debuginfo) find_debuginfo;
    __typeof__(&dwfl_build_id_find_debuginfo) find_by_build_id;
};

/* The functions, for the debuginfo callback below. */
static struct dw dw;

static const char *resolver = "symbols only (libdw not loaded)";

static int dw_load(void)
{
    void *lib = dlopen("libdw.so.1", RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        resolver = "symbols only (libdw.so.1 could not be loaded: install libdw1)";
        return 0;
    }
#define LOOK(field, name) (*(void **)&dw.field = dlsym(lib, name)) != NULL
    if (LOOK(begin, "dwfl_begin") && LOOK(proc_report, "dwfl_linux_proc_report") &&
        LOOK(report_end, "dwfl_report_end") && LOOK(addrmodule, "dwfl_addrmodule") &&
        LOOK(addrname, "dwfl_module_addrname") && LOOK(getsrc, "dwfl_module_getsrc") &&
        LOOK(lineinfo, "dwfl_lineinfo") && LOOK(end, "dwfl_end") &&
        LOOK(find_elf, "dwfl_linux_proc_find_elf") &&
        LOOK(find_debuginfo, "dwfl_standard_find_debuginfo") &&
        LOOK(find_by_build_id, "dwfl_build_id_find_debuginfo"))
        return 1;
#undef LOOK
    resolver = "symbols only (libdw.so.1 lacks a function mpiwatch needs)";
    return 0;
}

/* A module's separate debug information, looked for on this machine only:
 * by build-id under /usr/lib/debug/.build-id, then by its debuglink name (or
 * its own name + ".debug") beside it, in .debug/ beside it and under
 * /usr/lib/debug. The standard search would end by loading libdebuginfod and
 * its 25 libraries for every module without DWARF (20 ms at every
 * MPI_Finalize, measured); it is used only when DEBUGINFOD_URLS asks for
 * debuginfod. */
static int find_debuginfo(Dwfl_Module *mod, void **user, const char *name, Dwarf_Addr base,
                          const char *file, const char *debuglink, GElf_Word crc, char **found)
{
    const char *urls = getenv("DEBUGINFOD_URLS");
    if (urls != NULL && *urls != '\0')
        return dw.find_debuginfo(mod, user, name, base, file, debuglink, crc, found);
    int fd = dw.find_by_build_id(mod, user, name, base, file, debuglink, crc, found);
    if (fd >= 0 || file == NULL || file[0] != '/')
        return fd;
    const char *slash = strrchr(file, '/');
    int dir = (int)(slash - file);
    char own[PATH_MAX], path[2 * PATH_MAX + 32];
    if (debuglink == NULL) {
        snprintf(own, sizeof own, "%s.debug", slash + 1);
        debuglink = own;
    }
    static const char *const forms[] = {"%.*s/%s", "%.*s/.debug/%s", "/usr/lib/debug%.*s/%s"};
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
        snprintf(path, sizeof path, forms[i], dir, file, debuglink);
        if (strcmp(path, file) == 0 || (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
            continue;
        *found = strdup(path);
        return fd;
    }
    return -1;
}

/* Function, file and line of every site whose module this process has. */
static int resolve_dwarf(mw_site_summary *sites, const uintptr_t *address, int n)
{
    if (!dw_load())
        return 0;
    Dwfl_Callbacks callbacks = {.find_elf = dw.find_elf, .find_debuginfo = find_debuginfo};
    Dwfl *dwfl = dw.begin(&callbacks);
    if (dwfl == NULL || dw.proc_report(dwfl, getpid()) != 0 ||
        dw.report_end(dwfl, NULL, NULL) != 0) {
        if (dwfl != NULL)
            dw.end(dwfl);
        resolver = "symbols only (libdw could not read this process's modules)";
        return 0;
    }
    for (int i = 0; i < n; i++) {
        if (address[i] == 0)
            continue;
        Dwarf_Addr a = address[i] - 1;   /* inside the call instruction */
        Dwfl_Module *m = dw.addrmodule(dwfl, a);
        if (m == NULL)
            continue;
        const char *fn = dw.addrname(m, a);
        if (fn != NULL)
            snprintf(sites[i].function, sizeof sites[i].function, "%s", fn);
        Dwfl_Line *line = dw.getsrc(m, a);
        int lineno = 0;
        const char *file = line != NULL ? dw.lineinfo(line, NULL, &lineno, NULL, NULL, NULL) : NULL;
        if (file != NULL) {
            snprintf(sites[i].file, sizeof sites[i].file, "%s", file);
            sites[i].line = lineno;
        }
    }
    dw.end(dwfl);
    resolver = "libdw (DWARF line information where the module has it)";
    return 1;
}
#else
static const char *resolver = "symbols only (built without libdw: install libdw-dev and reconfigure)";

static int resolve_dwarf(mw_site_summary *sites, const uintptr_t *address, int n)
{
    (void)sites, (void)address, (void)n;
    return 0;
}
#endif

const char *mw_callsites_resolver(void)
{
    return resolver;
}

static void resolve_sites(mw_site_summary *sites, int n)
{
    uintptr_t *address = calloc((size_t)(n ? n : 1), sizeof *address);
    if (address == NULL)
        return;
    for (int i = 0; i < n; i++) {
        uintptr_t bias = 0;
        mw_site_summary *s = &sites[i];
        address[i] = 0;
        if (s->all.module == 0) {
            snprintf(s->module, sizeof s->module, "(no module)");
            continue;
        }
        if (!mw_module_find(s->all.module, s->module, sizeof s->module, &bias)) {
            snprintf(s->module, sizeof s->module, "(a module rank 0 has not loaded)");
            continue;
        }
        address[i] = bias + s->all.offset;
    }
    int dwarf = resolve_dwarf(sites, address, n);
    for (int i = 0; !dwarf && i < n; i++) {
        Dl_info info;
        if (address[i] != 0 && dladdr((void *)(address[i] - 1), &info) && info.dli_sname != NULL)
            snprintf(sites[i].function, sizeof sites[i].function, "%s", info.dli_sname);
    }
    free(address);
}

/* The callers above each site (MPIWATCH_CALLSITE_DEPTH > 1), resolved as
 * sites of their own, all at once. */
static void resolve_callers(mw_site_summary *sites, int n)
{
    int total = 0, k = 0;
    for (int i = 0; i < n; i++)
        total += sites[i].all.depth > 1 ? sites[i].all.depth - 1 : 0;
    mw_site_summary *up = total ? calloc((size_t)total, sizeof *up) : NULL;
    if (up == NULL)
        return;
    for (int i = 0; i < n; i++)
        for (int d = 0; d < sites[i].all.depth - 1; d++, k++) {
            up[k].all.module = sites[i].all.up_module[d];
            up[k].all.offset = sites[i].all.up_offset[d];
        }
    resolve_sites(up, total);
    k = 0;
    for (int i = 0; i < n; i++) {
        int depth = sites[i].all.depth - 1;
        if (depth <= 0)
            continue;
        sites[i].up = calloc((size_t)depth, sizeof *sites[i].up);
        for (int d = 0; d < depth; d++, k++)
            if (sites[i].up != NULL) {
                mw_frame_name *f = &sites[i].up[d];
                memcpy(f->function, up[k].function, sizeof f->function);
                memcpy(f->file, up[k].file, sizeof f->file);
                f->line = up[k].line;
            }
    }
    free(up);
}

/* C++ names as people read them, with the demangler of the C++ runtime the
 * program already has loaded (a C program has no C++ names to demangle). */
static void demangle(char *name, size_t size)
{
    typedef char *(*demangler)(const char *, char *, size_t *, int *);
    static demangler fn;
    static int looked;
    if (strncmp(name, "_Z", 2) != 0)
        return;
    if (!looked++)
        *(void **)&fn = dlsym(RTLD_DEFAULT, "__cxa_demangle");
    int status = -1;
    char *plain = fn != NULL ? fn(name, NULL, NULL, &status) : NULL;
    if (plain != NULL && status == 0)
        snprintf(name, size, "%s", plain);
    free(plain);
}

void mw_callsites_resolve(mw_site_summary *sites, int n)
{
    resolve_sites(sites, n);
    resolve_callers(sites, n);
    for (int i = 0; i < n; i++) {
        demangle(sites[i].function, sizeof sites[i].function);
        for (int d = 0; sites[i].up != NULL && d < sites[i].all.depth - 1; d++)
            demangle(sites[i].up[d].function, sizeof sites[i].up[d].function);
    }
}
