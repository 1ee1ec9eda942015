/* The loaded modules (the program and its shared libraries), to name a code
 * address the same way in every rank: by the module's build-id (or path)
 * and the offset from its load address, whatever ASLR did. */
#define _GNU_SOURCE
#include <elf.h>
#include <link.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "report/callsites.h"

/* FNV-1a, 64 bits. */
static uint64_t hash_bytes(const void *data, size_t n, uint64_t h)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

#define HASH_START 0xcbf29ce484222325ull

/* The module's path: dl_iterate_phdr gives the program's as "". */
static const char *module_path(const struct dl_phdr_info *info, char *buf, size_t size)
{
    if (info->dlpi_name != NULL && info->dlpi_name[0] != '\0')
        return info->dlpi_name;
    ssize_t n = readlink("/proc/self/exe", buf, size - 1);
    buf[n > 0 ? n : 0] = '\0';
    return buf;
}

/* The module's GNU build-id note: its bytes and their count, or NULL. */
static const unsigned char *build_id_note(const struct dl_phdr_info *info, size_t *len)
{
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_NOTE)
            continue;
        const unsigned char *p = (const unsigned char *)(info->dlpi_addr + ph->p_vaddr);
        const unsigned char *end = p + ph->p_memsz;
        while (p + sizeof(ElfW(Nhdr)) <= end) {
            const ElfW(Nhdr) *note = (const ElfW(Nhdr) *)p;
            const unsigned char *name = p + sizeof *note;
            const unsigned char *desc = name + ((note->n_namesz + 3) & ~3u);
            if (desc + note->n_descsz > end)
                break;
            if (note->n_type == NT_GNU_BUILD_ID && note->n_namesz == 4 &&
                memcmp(name, "GNU", 4) == 0 && note->n_descsz > 0) {
                *len = note->n_descsz;
                return desc;
            }
            p = desc + ((note->n_descsz + 3) & ~3u);
        }
    }
    return NULL;
}

/* The hash of the module's GNU build-id note, or of its path without one. */
static uint64_t module_hash(const struct dl_phdr_info *info)
{
    size_t len;
    const unsigned char *id = build_id_note(info, &len);
    if (id != NULL)
        return hash_bytes(id, len, HASH_START);
    char buf[PATH_MAX];
    const char *path = module_path(info, buf, sizeof buf);
    return hash_bytes(path, strlen(path), HASH_START ^ 1);
}

/* dl_iterate_phdr lists the program first. */
static int program_build_id(struct dl_phdr_info *info, size_t size, void *arg)
{
    char *out = arg;
    size_t len = 0;
    (void)size;
    const unsigned char *id = build_id_note(info, &len);
    for (size_t i = 0; id != NULL && i < len && i < MW_BUILD_ID_MAX; i++)
        snprintf(out + 2 * i, 3, "%02x", id[i]);
    return 1;
}

void mw_program_build_id(char out[2 * MW_BUILD_ID_MAX + 1])
{
    out[0] = '\0';
    dl_iterate_phdr(program_build_id, out);
}

struct lookup {
    uintptr_t address;      /* in: mw_module_of */
    uint64_t module;        /* in (mw_module_find) or out */
    uint64_t offset;        /* out */
    uintptr_t bias;         /* out */
    char *path;             /* out (mw_module_find) */
    size_t size;
    int found;
};

static int holds(const struct dl_phdr_info *info, uintptr_t address)
{
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t start = info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type == PT_LOAD && address >= start && address < start + ph->p_memsz)
            return 1;
    }
    return 0;
}

static int by_address(struct dl_phdr_info *info, size_t size, void *arg)
{
    struct lookup *l = arg;
    (void)size;
    if (!holds(info, l->address))
        return 0;
    l->module = module_hash(info);
    l->offset = l->address - info->dlpi_addr;
    l->found = 1;
    return 1;
}

static int by_hash(struct dl_phdr_info *info, size_t size, void *arg)
{
    struct lookup *l = arg;
    char buf[PATH_MAX];
    (void)size;
    if (module_hash(info) != l->module)
        return 0;
    l->bias = info->dlpi_addr;
    snprintf(l->path, l->size, "%s", module_path(info, buf, sizeof buf));
    l->found = 1;
    return 1;
}

int mw_module_of(uintptr_t address, uint64_t *module, uint64_t *offset)
{
    struct lookup l = {.address = address};
    dl_iterate_phdr(by_address, &l);
    if (l.found) {
        *module = l.module;
        *offset = l.offset;
    }
    return l.found;
}

int mw_module_find(uint64_t module, char *path, size_t size, uintptr_t *bias)
{
    struct lookup l = {.module = module, .path = path, .size = size};
    dl_iterate_phdr(by_hash, &l);
    if (l.found)
        *bias = l.bias;
    return l.found;
}
