/* Quirk: the MPI 5.0 standard ABI's way (the MPI Forum's mpi-abi-stubs
 * mpi.h): handles are pointers to incomplete structs, predefined ones small
 * integers cast to them; no MPI_Fint and no _c2f/_f2c functions, but
 * MPI_X_toint / MPI_X_fromint; MPI_Status with hidden fields; MPI_Abi_*
 * functions the 4.1 spec does not know. Self-contained (not fake_types.h,
 * which is the MPICH way). */
#ifndef ABI_HANDLES_H
#define ABI_HANDLES_H

#define MPI_VERSION 5
#define MPI_SUBVERSION 0
#define MPI_ABI_VERSION 1
#define MPI_ABI_SUBVERSION 0

typedef struct MPI_ABI_Comm *MPI_Comm;
typedef struct MPI_ABI_Datatype *MPI_Datatype;
typedef struct MPI_ABI_Errhandler *MPI_Errhandler;
typedef struct MPI_ABI_File *MPI_File;
typedef struct MPI_ABI_Group *MPI_Group;
typedef struct MPI_ABI_Info *MPI_Info;
typedef struct MPI_ABI_Message *MPI_Message;
typedef struct MPI_ABI_Op *MPI_Op;
typedef struct MPI_ABI_Request *MPI_Request;
typedef struct MPI_ABI_Session *MPI_Session;
typedef struct MPI_ABI_Win *MPI_Win;
typedef long MPI_Aint;
typedef long long MPI_Count;
typedef long long MPI_Offset;
typedef struct {
    int MPI_SOURCE;
    int MPI_TAG;
    int MPI_ERROR;
    int MPI_internal[5];
} MPI_Status;

#define MPI_SUCCESS 0
#define MPI_UNDEFINED (-32766)
#define MPI_ANY_SOURCE (-1)
#define MPI_ANY_TAG (-1)
#define MPI_PROC_NULL (-2)
#define MPI_ROOT (-3)
#define MPI_COMM_NULL ((MPI_Comm)0x00000100)
#define MPI_COMM_WORLD ((MPI_Comm)0x00000101)
#define MPI_DATATYPE_NULL ((MPI_Datatype)0x00000200)
#define MPI_REQUEST_NULL ((MPI_Request)0x00000180)
#define MPI_IN_PLACE ((void *)1)
#define MPI_STATUS_IGNORE ((MPI_Status *)0)
#define MPI_STATUSES_IGNORE ((MPI_Status *)0)

int MPI_Abi_get_version(int *abi_major, int *abi_minor);
int PMPI_Abi_get_version(int *abi_major, int *abi_minor);
MPI_Comm MPI_Comm_fromint(int comm);
MPI_Comm PMPI_Comm_fromint(int comm);
int MPI_Comm_toint(MPI_Comm comm);
int PMPI_Comm_toint(MPI_Comm comm);
MPI_Datatype MPI_Type_fromint(int datatype);
MPI_Datatype PMPI_Type_fromint(int datatype);
int MPI_Type_toint(MPI_Datatype datatype);
int PMPI_Type_toint(MPI_Datatype datatype);
int MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
int PMPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
int MPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
             MPI_Status *status);
int PMPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
              MPI_Status *status);
int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                  MPI_Op op, MPI_Comm comm);
int PMPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                   MPI_Op op, MPI_Comm comm);

#endif
