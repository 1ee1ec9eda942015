/* Trace call sites to file:line from the program on disk (client/site_lines.h). */
#define _GNU_SOURCE
#include "site_lines.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if MW_HAVE_LIBDWFL_H
#include <elfutils/libdwfl.h>

/* The few libdw functions used here, looked up at run time so that the
 * client needs libdw only when asked to name sites. */
struct mwc_site_lines {
    __typeof__(&dwfl_begin) begin;
    __typeof__(&dwfl_report_offline) report_offline;
    __typeof__(&dwfl_report_end) report_end;
    __typeof__(&dwfl_addrmodule) addrmodule;
    __typeof__(&dwfl_module_addrname) addrname;
    __typeof__(&dwfl_module_getsrc) getsrc;
    __typeof__(&dwfl_lineinfo) lineinfo;
    __typeof__(&dwfl_end) end;
    __typeof__(&dwfl_build_id_find_elf) find_elf;
    __typeof__(&dwfl_standard_find_debuginfo) find_debuginfo;
    __typeof__(&dwfl_offline_section_address) section_address;
    Dwfl_Callbacks callbacks;
    Dwfl *dwfl;
};

/* The ELF type (2 an executable at fixed addresses, 3 position-independent
 * or a library), 0 not an ELF file. */
static int elf_type(const char *path, char *why, size_t whysize)
{
    unsigned char h[18];
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        snprintf(why, whysize, "%s: %s", path, strerror(errno));
        return 0;
    }
    size_t got = fread(h, 1, sizeof h, f);
    fclose(f);
    if (got != sizeof h || memcmp(h, "\177ELF", 4) != 0) {
        snprintf(why, whysize, "%s is not an ELF program", path);
        return 0;
    }
    return h[5] == 2 ? h[16] << 8 | h[17] : h[16] | h[17] << 8;   /* EI_DATA: byte order */
}

mwc_site_lines *mwc_site_lines_open(const char *program, char *why, size_t whysize)
{
    int type = elf_type(program, why, whysize);
    if (type == 0)
        return NULL;
    if (type != 2) {
        snprintf(why, whysize, "%s is position-independent: the trace does not record where it "
                 "was loaded, so its sites stay addresses (link it with -no-pie to name them)",
                 program);
        return NULL;
    }
    void *lib = dlopen("libdw.so.1", RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        snprintf(why, whysize, "libdw.so.1 could not be loaded (install libdw1): sites stay "
                 "addresses");
        return NULL;
    }
    mwc_site_lines *l = calloc(1, sizeof *l);
    if (l == NULL) {
        snprintf(why, whysize, "out of memory");
        return NULL;
    }
#define LOOK(field, name) (*(void **)&l->field = dlsym(lib, name)) != NULL
    if (!(LOOK(begin, "dwfl_begin") && LOOK(report_offline, "dwfl_report_offline") &&
          LOOK(report_end, "dwfl_report_end") && LOOK(addrmodule, "dwfl_addrmodule") &&
          LOOK(addrname, "dwfl_module_addrname") && LOOK(getsrc, "dwfl_module_getsrc") &&
          LOOK(lineinfo, "dwfl_lineinfo") && LOOK(end, "dwfl_end") &&
          LOOK(find_elf, "dwfl_build_id_find_elf") &&
          LOOK(find_debuginfo, "dwfl_standard_find_debuginfo") &&
          LOOK(section_address, "dwfl_offline_section_address"))) {
        snprintf(why, whysize, "libdw.so.1 lacks a function mpiwatch needs: sites stay addresses");
        free(l);
        return NULL;
    }
#undef LOOK
    l->callbacks = (Dwfl_Callbacks){.find_elf = l->find_elf,
                                    .find_debuginfo = l->find_debuginfo,
                                    .section_address = l->section_address};
    l->dwfl = l->begin(&l->callbacks);
    if (l->dwfl == NULL || l->report_offline(l->dwfl, program, program, -1) == NULL ||
        l->report_end(l->dwfl, NULL, NULL) != 0) {
        snprintf(why, whysize, "libdw could not read %s: sites stay addresses", program);
        if (l->dwfl != NULL)
            l->end(l->dwfl);
        free(l);
        return NULL;
    }
    return l;
}

/* The line table's file of a, its line in *lineno; NULL when it has none. */
static const char *source_of(mwc_site_lines *l, Dwfl_Module *m, Dwarf_Addr a, int *lineno)
{
    Dwfl_Line *line = l->getsrc(m, a);
    *lineno = 0;
    return line != NULL ? l->lineinfo(line, NULL, lineno, NULL, NULL, NULL) : NULL;
}

static const char *base_name(const char *file)
{
    const char *base = strrchr(file, '/');
    return base != NULL ? base + 1 : file;
}

int mwc_site_lines_where(mwc_site_lines *l, uint64_t address, char *file, size_t filesize,
                         int *line)
{
    if (l == NULL || address == 0)
        return 0;
    Dwarf_Addr a = address - 1;   /* inside the call instruction */
    Dwfl_Module *m = l->addrmodule(l->dwfl, a);
    const char *source = m != NULL ? source_of(l, m, a, line) : NULL;
    if (source == NULL)
        return 0;
    snprintf(file, filesize, "%s", base_name(source));
    return 1;
}

void mwc_site_lines_name(mwc_site_lines *l, uint64_t address, char *out, size_t outsize)
{
    snprintf(out, outsize, "0x%llx", (unsigned long long)address);
    if (l == NULL || address == 0)
        return;
    Dwarf_Addr a = address - 1;   /* inside the call instruction */
    Dwfl_Module *m = l->addrmodule(l->dwfl, a);
    if (m == NULL)
        return;   /* in a library, loaded where the trace does not say */
    int lineno;
    const char *file = source_of(l, m, a, &lineno);
    const char *fn = l->addrname(m, a);
    if (file != NULL) {
        snprintf(out, outsize, "%s:%d", base_name(file), lineno);
    } else if (fn != NULL) {
        snprintf(out, outsize, "%s+0x%llx", fn, (unsigned long long)address);
    }
}

void mwc_site_lines_close(mwc_site_lines *l)
{
    if (l == NULL)
        return;
    l->end(l->dwfl);
    free(l);
}
#else
struct mwc_site_lines {
    int none;
};

mwc_site_lines *mwc_site_lines_open(const char *program, char *why, size_t whysize)
{
    snprintf(why, whysize, "mpiwatch was built without libdw (install libdw-dev and "
             "reconfigure): the sites of %s stay addresses", program);
    return NULL;
}

int mwc_site_lines_where(mwc_site_lines *l, uint64_t address, char *file, size_t filesize,
                         int *line)
{
    (void)l, (void)address, (void)file, (void)filesize, (void)line;
    return 0;
}

void mwc_site_lines_name(mwc_site_lines *l, uint64_t address, char *out, size_t outsize)
{
    (void)l;
    snprintf(out, outsize, "0x%llx", (unsigned long long)address);
}

void mwc_site_lines_close(mwc_site_lines *l)
{
    (void)l;
}
#endif
