/* Growable arrays of the trace readers and the wait-state analysis (built
 * into libmwwait, which libmpiwatch links too: running out of memory is
 * returned, never fatal). */
#ifndef MWC_ARRAY_ROOM_H
#define MWC_ARRAY_ROOM_H

#include <stdlib.h>

/* Room for one more element in v, an array of *cap elements of elem bytes
 * of which n are used: v itself while there is room, else v moved into
 * twice the capacity (first elements at the start), *cap updated; NULL when
 * memory ran out (v and *cap unchanged). */
static inline void *mwc_array_room(void *v, size_t n, size_t *cap, size_t elem, size_t first)
{
    if (n < *cap)
        return v;
    size_t c = *cap ? *cap * 2 : first;
    void *more = realloc(v, c * elem);
    if (more != NULL)
        *cap = c;
    return more;
}

#endif
