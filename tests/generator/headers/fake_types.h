/* Minimal MPI types and constants shared by the generator's test headers.
 * Hand-written for the tests: every handle type of the standard (so that
 * the runtime's headers compile against any test header standing in as
 * mpi.h), a few constants, and, as MPICH does, the Fortran handle
 * conversions as macros (each test header declares its own functions). */
#ifndef FAKE_TYPES_H
#define FAKE_TYPES_H

#define MPI_VERSION 4
#define MPI_SUBVERSION 1

typedef int MPI_Comm;
typedef int MPI_Datatype;
typedef int MPI_Errhandler;
typedef int MPI_File;
typedef int MPI_Group;
typedef int MPI_Info;
typedef int MPI_Message;
typedef int MPI_Op;
typedef int MPI_Request;
typedef int MPI_Session;
typedef int MPI_Win;
typedef int MPI_Fint;
typedef long MPI_Aint;
typedef long long MPI_Count;
typedef long long MPI_Offset;
typedef struct MPI_Status {
    int MPI_SOURCE;
    int MPI_TAG;
    int MPI_ERROR;
} MPI_Status;

#define MPI_SUCCESS 0
#define MPI_UNDEFINED (-32766)
#define MPI_ANY_SOURCE (-1)
#define MPI_ANY_TAG (-1)
#define MPI_PROC_NULL (-2)
#define MPI_ROOT (-3)
#define MPI_COMM_NULL ((MPI_Comm)0)
#define MPI_COMM_WORLD ((MPI_Comm)1)
#define MPI_DATATYPE_NULL ((MPI_Datatype)0)
#define MPI_REQUEST_NULL ((MPI_Request)0)
#define MPI_IN_PLACE ((void *)-1)
#define MPI_STATUS_IGNORE ((MPI_Status *)0)
#define MPI_STATUSES_IGNORE ((MPI_Status *)0)

#define PMPI_Comm_c2f(h) ((MPI_Fint)(h))
#define PMPI_Type_c2f(h) ((MPI_Fint)(h))
#define PMPI_Comm_f2c(h) ((MPI_Comm)(h))
#define PMPI_Type_f2c(h) ((MPI_Datatype)(h))
#define PMPI_Errhandler_f2c(h) ((MPI_Errhandler)(h))
#define PMPI_File_f2c(h) ((MPI_File)(h))
#define PMPI_Group_f2c(h) ((MPI_Group)(h))
#define PMPI_Info_f2c(h) ((MPI_Info)(h))
#define PMPI_Message_f2c(h) ((MPI_Message)(h))
#define PMPI_Op_f2c(h) ((MPI_Op)(h))
#define PMPI_Request_f2c(h) ((MPI_Request)(h))
#define PMPI_Session_f2c(h) ((MPI_Session)(h))
#define PMPI_Win_f2c(h) ((MPI_Win)(h))
#define PMPI_Status_f2c(f, c) ((void)(f), (void)(c), MPI_SUCCESS)

#endif
