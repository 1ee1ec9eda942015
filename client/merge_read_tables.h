/* A partial profile's call sites and regions read from its JSON file
 * (client/merge_read_tables.c), for mpiwatch --merge; only in a build with
 * libjansson, as the rest of the reading (client/merge_read.c). */
#ifndef MWC_MERGE_READ_TABLES_H
#define MWC_MERGE_READ_TABLES_H

#ifdef MW_HAVE_JANSSON
#include <jansson.h>

#include "merge_read.h"

/* The "callsites" object (NULL: a profile without them) into p->sites,
 * p->sites_other and p->resolver: 0, or -1 with why in err. */
int mwc_read_sites(const char *path, json_t *callsites, mwc_partial *p, char *err, size_t size);
/* The "regions" object (NULL: none) into p->regions: 0, or -1. */
int mwc_read_regions(const char *path, json_t *regions, mwc_partial *p, char *err, size_t size);

/* Shared with client/merge_read.c: the MW_ID_* of an MPI function's name, or
 * -1; and a fault of path put into err (returns -1). */
int mwc_fn_id(const char *name);
int mwc_merge_fail(char *err, size_t size, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
#endif

#endif
