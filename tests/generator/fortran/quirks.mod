GFORTRAN module version '15' created from quirks.f90
(() () () () () () () () () () () () () () () () () () () () () () () () () () ())

()

()

()

()

()

(2 'mpi_pcontrol_f08' 'quirks' '' 1 ((PROCEDURE UNKNOWN-INTENT MODULE-PROC
BODY UNKNOWN 0 0 EXTERNAL SUBROUTINE ALWAYS_EXPLICIT) () (UNKNOWN 0 0 0 0
UNKNOWN ()) 3 0 (4 5) () 0 () () () 0 0)
3 'mpi_wtime_f08' 'quirks' 'MPI_Wtime' 1 ((PROCEDURE UNKNOWN-INTENT
MODULE-PROC BODY UNKNOWN 0 0 EXTERNAL FUNCTION IS_BIND_C ALWAYS_EXPLICIT) ()
(REAL 8 0 1 0 REAL ()) 6 0 () () 0 () () () 0 0)
4 'level' '' '' 2 ((VARIABLE IN UNKNOWN-PROC UNKNOWN UNKNOWN 0 0 DUMMY) ()
(INTEGER 4 0 0 0 INTEGER ()) 0 0 () () 0 () () () 0 0)
5 'ierror' '' '' 2 ((VARIABLE OUT UNKNOWN-PROC UNKNOWN UNKNOWN 0 0 OPTIONAL
DUMMY) () (INTEGER 4 0 0 0 INTEGER ()) 0 0 () () 0 () () () 0 0)
7 'mpi_info_set' 'quirks' '' 1 ((PROCEDURE UNKNOWN-INTENT MODULE-PROC BODY
UNKNOWN 0 0 EXTERNAL SUBROUTINE ALWAYS_EXPLICIT) () (UNKNOWN 0 0 0 0 UNKNOWN
()) 8 0 (9 10 11 12) () 0 () () () 0 0)
9 'info' '' '' 7 ((VARIABLE IN UNKNOWN-PROC UNKNOWN UNKNOWN 0 0 DUMMY) ()
(INTEGER 4 0 0 0 INTEGER ()) 0 0 () () 0 () () () 0 0)
10 'key' '' '' 7 ((VARIABLE IN UNKNOWN-PROC UNKNOWN UNKNOWN 0 0 DUMMY) ()
(CHARACTER 1 0 0 0 CHARACTER (() ())) 0 0 () () 0 () () () 0 0)
11 'value' '' '' 7 ((VARIABLE IN UNKNOWN-PROC UNKNOWN UNKNOWN 0 0 DUMMY) ()
(CHARACTER 1 0 0 0 CHARACTER (() ())) 0 0 () () 0 () () () 0 0)
12 'ierror' '' '' 7 ((VARIABLE OUT UNKNOWN-PROC UNKNOWN UNKNOWN 0 0 DUMMY) ()
(INTEGER 4 0 0 0 INTEGER ()) 0 0 () () 0 () () () 0 0)
)

('mpi_info_set' 0 7 'mpi_pcontrol_f08' 0 2 'mpi_wtime_f08' 0 3)
