/* The JSON report's schema name (docs/report-format.md), its one definition:
 * the runtime's report (runtime/report/json.c) and the live page's state
 * (client/web_state.c) write it, the client's --report check
 * (client/html_report.c) and the viewer page (client/web/viewer.js, given
 * it by the C strings client/web/embed.py writes) expect it. The tests spell
 * it themselves, on purpose (tests/lib/report_schema.py). Not installed. */
#ifndef MPIWATCH_REPORT_H
#define MPIWATCH_REPORT_H

#define MW_REPORT_SCHEMA "mpiwatch-report/1"

#endif
