/* Minimal MPI types and constants shared by the generator's test headers.
 * Hand-written for the tests: only what the prototypes below need. */
#ifndef FAKE_TYPES_H
#define FAKE_TYPES_H

#define MPI_VERSION 4
#define MPI_SUBVERSION 1
#define MPI_SUCCESS 0

typedef int MPI_Comm;
typedef int MPI_Datatype;
typedef int MPI_Group;
typedef int MPI_Request;
typedef int MPI_Fint;
typedef long MPI_Aint;
typedef long long MPI_Count;
typedef struct MPI_Status {
    int MPI_SOURCE;
    int MPI_TAG;
    int MPI_ERROR;
} MPI_Status;

#endif
