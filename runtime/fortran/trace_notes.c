/* The trace's notes of Fortran calls (fortran/bridge.h): the mpif.h
 * binding's arguments converted to what trace/notes.h takes. Runs only
 * while the trace records: its cost is the trace's. */
#include <stdlib.h>

#include "fortran/bridge.h"
#include "fortran/convert.h"
#include "trace/comm_ids.h"
#include "trace/notes.h"

/* Only where the header has Fortran interop (MPI_Fint, the _f2c functions):
 * without it (the MPI 5.0 ABI) there is no Fortran library to call these. */
#if MW_MPI_FORTRAN

/* INTEGERs in a Fortran status: the MPI says, or (Open MPI 4) it is the C
 * status's size, as both MPIs lay them out. */
#ifdef MPI_F_STATUS_SIZE
#define MW_F_STATUS_INTS MPI_F_STATUS_SIZE
#else
#define MW_F_STATUS_INTS ((int)(sizeof(MPI_Status) / sizeof(MPI_Fint)))
#endif

/* The thread's scratch arrays: the requests before a wait, its indices and
 * statuses after it. */
static _Thread_local MPI_Request *requests_c;
static _Thread_local int *indices_c;
static _Thread_local MPI_Status *statuses_c;
static _Thread_local int cap_requests, cap_indices, cap_statuses;

static int room(void **array, int *cap, int n, size_t size)
{
    if (n <= *cap)
        return 1;
    void *more = realloc(*array, (size_t)n * size);
    if (more == NULL)
        return 0;
    *array = more;
    *cap = n;
    return 1;
}

void mpiwatch_fortran_trace_request(const void *ierror, const void *request, const void *comm,
                                    int receives)
{
    if (!mw_trace_listening())
        return;
    MPI_Comm c = comm != NULL ? PMPI_Comm_f2c(*(const MPI_Fint *)comm) : MPI_COMM_NULL;
    mw_trace_note_request(mw_f_error(ierror), PMPI_Request_f2c(*(const MPI_Fint *)request), c,
                          receives);
}

void mpiwatch_fortran_trace_comm(const void *ierror, const void *comm)
{
    if (mw_trace_listening() && mw_f_error(ierror) == MPI_SUCCESS)
        mw_trace_comm_created(PMPI_Comm_f2c(*(const MPI_Fint *)comm));
}

void mpiwatch_fortran_trace_completing(const void *count, const void *requests)
{
    if (!mw_trace_listening())
        return;
    int n = count != NULL ? *(const int *)count : 1;
    if (n <= 0 || !room((void **)&requests_c, &cap_requests, n, sizeof *requests_c)) {
        mw_trace_note_completing(0, NULL);
        return;
    }
    for (int i = 0; i < n; i++)
        requests_c[i] = PMPI_Request_f2c(((const MPI_Fint *)requests)[i]);
    mw_trace_note_completing(n, requests_c);
}

/* n Fortran statuses as C ones (MPI_STATUSES_IGNORE for the sentinel). */
static const MPI_Status *statuses_of(const void *statuses, int n)
{
    if (statuses == NULL || n <= 0 || mw_f_is_sentinel(MW_F_STATUSES_IGNORE, statuses) ||
        !room((void **)&statuses_c, &cap_statuses, n, sizeof *statuses_c))
        return MPI_STATUSES_IGNORE;
    for (int k = 0; k < n; k++)
        if (PMPI_Status_f2c((const MPI_Fint *)statuses + (size_t)k * MW_F_STATUS_INTS,
                            &statuses_c[k]) != MPI_SUCCESS)
            return MPI_STATUSES_IGNORE;
    return statuses_c;
}

void mpiwatch_fortran_trace_completed(const void *ierror, int form, const void *count,
                                      const void *flag, const void *index, const void *indices,
                                      const void *statuses)
{
    if (!mw_trace_listening())
        return;
    int ret = mw_f_error(ierror), c_flag = flag != NULL && *(const int *)flag != 0;
    int c_index = index != NULL ? *(const int *)index : MPI_UNDEFINED;
    MPI_Status one;
    const MPI_Status *c_statuses = MPI_STATUSES_IGNORE;
    const int *c_indices = NULL;
    switch (form) {
    case MW_TRACE_DONE_ONE:
    case MW_TRACE_DONE_ANY:
        if (form == MW_TRACE_DONE_ANY && c_index != MPI_UNDEFINED)
            c_index--;   /* Fortran's indices start at 1 */
        c_statuses = mw_f_status((void *)statuses, &one);
        break;
    case MW_TRACE_DONE_ALL:
        c_statuses = statuses_of(statuses, count != NULL ? *(const int *)count : 1);
        break;
    case MW_TRACE_DONE_SOME:
        if (c_index != MPI_UNDEFINED && c_index > 0) {
            if (!room((void **)&indices_c, &cap_indices, c_index, sizeof *indices_c))
                return;
            for (int k = 0; k < c_index; k++)
                indices_c[k] = ((const int *)indices)[k] - 1;
            c_indices = indices_c;
            c_statuses = statuses_of(statuses, c_index);
        }
        break;
    }
    mw_trace_note_completed(ret, form, flag != NULL ? &c_flag : NULL, &c_index, c_indices,
                            c_statuses);
}

void mpiwatch_fortran_trace_poll(const void *ierror, const void *flag)
{
    if (!mw_trace_listening())
        return;
    int c_flag = *(const int *)flag != 0;
    mw_trace_note_poll(mw_f_error(ierror), &c_flag);
}

#endif
