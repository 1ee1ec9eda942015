/* Call sites as OTF2 SourceCodeLocation definitions (client/otf2_sites.h). */
#include "otf2_sites.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "site_lines.h"

typedef struct {
    uint64_t address;               /* 0: an empty slot */
    OTF2_SourceCodeLocationRef scl;
} slot;

typedef struct {
    uint32_t file;                  /* index into files */
    int line;
} location;

struct mwc_otf2_sites {
    mwc_site_lines *lines;
    slot *slots;                    /* addresses resolved: open addressing, 2^bits */
    unsigned bits;
    size_t used;
    location *locations;            /* definition i */
    size_t nlocations;
    char **files;
    size_t nfiles;
};

mwc_otf2_sites *mwc_otf2_sites_open(const char *program, char *why, size_t whysize)
{
    mwc_site_lines *lines = mwc_site_lines_open(program, why, whysize);
    mwc_otf2_sites *s = lines != NULL ? calloc(1, sizeof *s) : NULL;
    if (s == NULL || (s->slots = calloc(64, sizeof *s->slots)) == NULL) {
        if (lines != NULL)
            snprintf(why, whysize, "out of memory");
        mwc_site_lines_close(lines);
        free(s);
        return NULL;
    }
    s->lines = lines;
    s->bits = 6;
    return s;
}

static slot *find(slot *slots, unsigned bits, uint64_t address)
{
    size_t mask = ((size_t)1 << bits) - 1;
    size_t i = (size_t)((address * 0x9E3779B97F4A7C15ull) >> 32) & mask;
    while (slots[i].address != 0 && slots[i].address != address)
        i = (i + 1) & mask;
    return &slots[i];
}

/* Twice the slots once half are used. 0, or -1 out of memory. */
static int grow(mwc_otf2_sites *s)
{
    size_t n = (size_t)1 << s->bits;
    slot *more = calloc(2 * n, sizeof *more);
    if (more == NULL)
        return -1;
    for (size_t i = 0; i < n; i++)
        if (s->slots[i].address != 0)
            *find(more, s->bits + 1, s->slots[i].address) = s->slots[i];
    free(s->slots);
    s->slots = more;
    s->bits++;
    return 0;
}

/* The definition of file:line, added when new. */
static OTF2_SourceCodeLocationRef define(mwc_otf2_sites *s, const char *file, int line)
{
    size_t f = 0, l = 0;
    while (f < s->nfiles && strcmp(s->files[f], file) != 0)
        f++;
    if (f == s->nfiles) {
        char **more = realloc(s->files, (f + 1) * sizeof *more);
        char *copy = strdup(file);
        if (more == NULL || copy == NULL) {
            free(copy);
            if (more != NULL)
                s->files = more;
            return OTF2_UNDEFINED_SOURCE_CODE_LOCATION;
        }
        s->files = more;
        s->files[s->nfiles++] = copy;
    }
    while (l < s->nlocations && !(s->locations[l].file == f && s->locations[l].line == line))
        l++;
    if (l == s->nlocations) {
        location *more = realloc(s->locations, (l + 1) * sizeof *more);
        if (more == NULL)
            return OTF2_UNDEFINED_SOURCE_CODE_LOCATION;
        s->locations = more;
        s->locations[s->nlocations++] = (location){(uint32_t)f, line};
    }
    return (OTF2_SourceCodeLocationRef)l;
}

OTF2_SourceCodeLocationRef mwc_otf2_sites_of(mwc_otf2_sites *s, uint64_t address)
{
    if (s == NULL || address == 0)
        return OTF2_UNDEFINED_SOURCE_CODE_LOCATION;
    slot *at = find(s->slots, s->bits, address);
    if (at->address == address)
        return at->scl;
    if (2 * (s->used + 1) > ((size_t)1 << s->bits)) {
        if (grow(s) != 0)
            return OTF2_UNDEFINED_SOURCE_CODE_LOCATION;
        at = find(s->slots, s->bits, address);
    }
    char file[1024];
    int line = 0;
    at->address = address;
    at->scl = mwc_site_lines_where(s->lines, address, file, sizeof file, &line)
                  ? define(s, file, line)
                  : OTF2_UNDEFINED_SOURCE_CODE_LOCATION;
    s->used++;
    return at->scl;
}

uint32_t mwc_otf2_sites_define(const mwc_otf2_sites *s, OTF2_GlobalDefWriter *d,
                               uint32_t first_string)
{
    if (s == NULL)
        return first_string;
    for (size_t f = 0; f < s->nfiles; f++)
        OTF2_GlobalDefWriter_WriteString(d, first_string + (uint32_t)f, s->files[f]);
    for (size_t l = 0; l < s->nlocations; l++)
        OTF2_GlobalDefWriter_WriteSourceCodeLocation(d, (OTF2_SourceCodeLocationRef)l,
                                                     first_string + s->locations[l].file,
                                                     (uint32_t)s->locations[l].line);
    return first_string + (uint32_t)s->nfiles;
}

size_t mwc_otf2_sites_count(const mwc_otf2_sites *s)
{
    return s != NULL ? s->nlocations : 0;
}

void mwc_otf2_sites_close(mwc_otf2_sites *s)
{
    if (s == NULL)
        return;
    mwc_site_lines_close(s->lines);
    for (size_t f = 0; f < s->nfiles; f++)
        free(s->files[f]);
    free(s->files);
    free(s->locations);
    free(s->slots);
    free(s);
}
