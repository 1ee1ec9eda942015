/* Call sites to function, file and line, on rank 0 at MPI_Finalize, with
 * elfutils' libdw (loaded with dlopen, so that no program that links
 * libmpiwatch gains a dependency, and only rank 0 pays for it). Without
 * libdw, the dynamic symbol table (dladdr) gives what it can. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
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
};

static const char *resolver = "symbols only (libdw not loaded)";

static int dw_load(struct dw *dw)
{
    void *lib = dlopen("libdw.so.1", RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        resolver = "symbols only (libdw.so.1 could not be loaded: install libdw1)";
        return 0;
    }
#define LOOK(field, name) (*(void **)&dw->field = dlsym(lib, name)) != NULL
    if (LOOK(begin, "dwfl_begin") && LOOK(proc_report, "dwfl_linux_proc_report") &&
        LOOK(report_end, "dwfl_report_end") && LOOK(addrmodule, "dwfl_addrmodule") &&
        LOOK(addrname, "dwfl_module_addrname") && LOOK(getsrc, "dwfl_module_getsrc") &&
        LOOK(lineinfo, "dwfl_lineinfo") && LOOK(end, "dwfl_end") &&
        LOOK(find_elf, "dwfl_linux_proc_find_elf") &&
        LOOK(find_debuginfo, "dwfl_standard_find_debuginfo"))
        return 1;
#undef LOOK
    resolver = "symbols only (libdw.so.1 lacks a function mpiwatch needs)";
    return 0;
}

/* Function, file and line of every site whose module this process has. */
static int resolve_dwarf(mw_site_summary *sites, const uintptr_t *address, int n)
{
    struct dw dw;
    if (!dw_load(&dw))
        return 0;
    Dwfl_Callbacks callbacks = {.find_elf = dw.find_elf, .find_debuginfo = dw.find_debuginfo};
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

void mw_callsites_resolve(mw_site_summary *sites, int n)
{
    static uintptr_t address[MW_SITES_PER_RANK * 64];
    if (n > (int)(sizeof address / sizeof address[0]))
        n = (int)(sizeof address / sizeof address[0]);
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
    if (resolve_dwarf(sites, address, n))
        return;
    for (int i = 0; i < n; i++) {
        Dl_info info;
        if (address[i] != 0 && dladdr((void *)(address[i] - 1), &info) && info.dli_sname != NULL)
            snprintf(sites[i].function, sizeof sites[i].function, "%s", info.dli_sname);
    }
}
