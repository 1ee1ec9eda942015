/* layering_c.c: MPI_Init and MPI_Finalize through the C API, for
 * layering.f and layering08.f90 (Fortran calls these with no arguments). */
#include <stddef.h>

#include <mpi.h>

void mw_c_init_(void)
{
    MPI_Init(NULL, NULL);
}

void mw_c_finalize_(void)
{
    MPI_Finalize();
}
