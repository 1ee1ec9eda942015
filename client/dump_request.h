/* mpiwatch --dump: asks every rank of a job, over its live monitor's TCP
 * endpoint and with its token, to write its partial profile now
 * (docs/partial-reports.md); a rank stuck inside MPI answers too, its
 * monitor's thread writes the file. */
#ifndef MWC_DUMP_REQUEST_H
#define MWC_DUMP_REQUEST_H

#include "endpoints.h"

/* Ask each endpoint in turn, each within timeout_s seconds; print each
 * rank's file (stdout) or why it has none (stderr). 0: every rank wrote
 * its file; 1 otherwise. */
int mwc_dump_request(const mwc_endpoints *l, double timeout_s, int quiet);

#endif
