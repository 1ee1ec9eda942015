/* The functions of include/mpiwatch.h. */
#include "mpiwatch.h"
#include "core/compiler.h"
#include "core/handles.h"
#include "core/state.h"

MW_EXPORT long long mpiwatch_type_size(MPI_Datatype datatype)
{
    /* Hooks call this on every call (ctx.bytes): use the runtime's per-thread
     * cache once the runtime has started. */
    mw_thread *t;
    if (mw_state.started && !mw_state.finished && (t = mw_thread_self()) != NULL)
        return (long long)mw_type_size(t, datatype);

    int initialized = 0, finalized = 0;
    if (datatype == MPI_DATATYPE_NULL || PMPI_Initialized(&initialized) != MPI_SUCCESS ||
        !initialized || PMPI_Finalized(&finalized) != MPI_SUCCESS || finalized)
        return 0;
    MPI_Count size = 0;
    if (PMPI_Type_size_x(datatype, &size) != MPI_SUCCESS || size == MPI_UNDEFINED)
        return 0;
    return (long long)size;
}
