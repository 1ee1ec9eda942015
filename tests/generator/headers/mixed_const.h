/* Quirk: const where newer MPIs have it, none where older ones did not.
 * The wrappers must repeat each prototype exactly as declared (the MPI_
 * prototypes are declared too, as real headers do, so that compiling the
 * wrappers against this header catches any difference). */
#include "fake_types.h"

int MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest,
             int tag, MPI_Comm comm);
int PMPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest,
              int tag, MPI_Comm comm);
int MPI_Send_init(void *buf, int count, MPI_Datatype datatype, int dest,
                  int tag, MPI_Comm comm, MPI_Request *request);
int PMPI_Send_init(void *buf, int count, MPI_Datatype datatype, int dest,
                   int tag, MPI_Comm comm, MPI_Request *request);
int MPI_Group_incl(MPI_Group group, int n, const int ranks[],
                   MPI_Group *newgroup);
int PMPI_Group_incl(MPI_Group group, int n, const int ranks[],
                    MPI_Group *newgroup);
int MPI_Type_indexed(int count, int array_of_blocklengths[],
                     int array_of_displacements[], MPI_Datatype oldtype,
                     MPI_Datatype *newtype);
int PMPI_Type_indexed(int count, int array_of_blocklengths[],
                      int array_of_displacements[], MPI_Datatype oldtype,
                      MPI_Datatype *newtype);
