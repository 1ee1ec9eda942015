/* The functions whose wrappers tests/generator/golden/ freezes: one of each
 * wrapper template (generic, init, finalize, pcontrol), a non-int return
 * and a large-count variant. */
#include "fake_types.h"

int MPI_Init(int *argc, char ***argv);
int PMPI_Init(int *argc, char ***argv);
int MPI_Finalize(void);
int PMPI_Finalize(void);
int MPI_Pcontrol(const int level, ...);
int PMPI_Pcontrol(const int level, ...);
double MPI_Wtime(void);
double PMPI_Wtime(void);
int MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest,
             int tag, MPI_Comm comm);
int PMPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest,
              int tag, MPI_Comm comm);
int MPI_Send_c(const void *buf, MPI_Count count, MPI_Datatype datatype,
               int dest, int tag, MPI_Comm comm);
int PMPI_Send_c(const void *buf, MPI_Count count, MPI_Datatype datatype,
                int dest, int tag, MPI_Comm comm);
