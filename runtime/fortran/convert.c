/* Argument conversion for the Fortran entry points (see convert.h): compiled
 * into both libraries, each with its own copy (libmpiwatch_f's slow bodies,
 * libmpiwatch's fast ones). */
#include <stdlib.h>

#include "fortran/convert.h"

const void *mw_f_sentinel_addresses[MW_F_SENTINEL_KINDS][MW_F_MAX_BINDINGS];

void mw_f_note_sentinel(int kind, intptr_t address)
{
    if (kind < 0 || kind >= MW_F_SENTINEL_KINDS || address == 0)
        return;
    const void **slots = mw_f_sentinel_addresses[kind];
    for (int i = 0; i < MW_F_MAX_BINDINGS; i++) {
        if (slots[i] == (const void *)address)
            return;
        if (slots[i] == NULL) {
            slots[i] = (const void *)address;
            return;
        }
    }
}

#if MW_MPI_FORTRAN   /* MPI_Fint and the _f2c functions: not in the MPI 5.0 ABI's mpi.h */
/* Per-thread scratch arrays, grown as needed and kept for the thread's life. */
typedef struct {
    void *data;
    size_t bytes;
} mw_f_scratch;

static _Thread_local mw_f_scratch mw_f_scratches[3];

static void *mw_f_room(int slot, MPI_Count n, size_t size)
{
    mw_f_scratch *s = &mw_f_scratches[slot];
    if (n < 0 || (size_t)n > ((size_t)-1) / size)
        return NULL;
    size_t need = (size_t)n * size;
    if (need == 0)
        need = size;
    if (need > s->bytes) {
        void *grown = realloc(s->data, need);
        if (grown == NULL)
            return NULL;
        s->data = grown;
        s->bytes = need;
    }
    return s->data;
}

MPI_Datatype *mw_f_datatype_array(int slot, MPI_Count n, const MPI_Fint *array)
{
    MPI_Datatype *out = mw_f_room(slot & 1, n, sizeof *out);
    if (out == NULL || array == NULL)
        return NULL;
    for (MPI_Count i = 0; i < n; i++)
        out[i] = PMPI_Type_f2c(array[i]);
    return out;
}

MPI_Request *mw_f_request_array(MPI_Count n, const MPI_Fint *array)
{
    MPI_Request *out = mw_f_room(2, n, sizeof *out);
    if (out == NULL || array == NULL)
        return NULL;
    for (MPI_Count i = 0; i < n; i++)
        out[i] = PMPI_Request_f2c(array[i]);
    return out;
}
#endif
