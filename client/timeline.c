/* The timeline page (client/timeline.h). The data is one JSON object,
 * written into the page with every '<' escaped (mw_viewer_write_data), so
 * that no name in it can end the script element. */
#include "timeline.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "html_report.h"
#include "mpiwatch_viewer.h"
#include "view_json.h"
#include "wait_input.h"
#include "wait_report.h"
#include "wait_states.h"

typedef struct {
    const mwc_wait_input *j;
    const mwc_timeline_select *sel;
    double t0;                 /* the trace's first call's entry: time 0 on the page */
    double from, to;           /* the window embedded, on the page's clock */
    double cut;                /* INFINITY, or: calls entered from here on are left out */
    double span;               /* the trace's last call's exit, on the page's clock */
} selection;

static int embedded(const selection *s, int rank, size_t call)
{
    const mww_call *c = &s->j->view[rank].calls[call];
    return mwc_select_rank(s->sel, rank) &&
           mwc_select_span(s->sel, c->enter - s->t0, c->leave - s->t0) &&
           c->enter - s->t0 < s->cut;
}

static int by_double(const void *pa, const void *pb)
{
    double x = *(const double *)pa, y = *(const double *)pb;
    return x < y ? -1 : x > y;
}

/* The window, and the cut when it holds too many calls: their entries
 * sorted, the cut at the first left out. -1 out of memory. */
static int choose(selection *s, size_t *selected)
{
    const mwc_wait_input *j = s->j;
    double first = INFINITY, last = -INFINITY;
    for (int k = 0; k < j->nranks; k++)
        for (size_t i = 0; i < j->view[k].ncalls; i++) {
            /* no libm in the client: comparisons, not fmin and fmax */
            const mww_call *c = &j->view[k].calls[i];
            first = c->enter < first ? c->enter : first;
            last = c->leave > last ? c->leave : last;
        }
    s->t0 = isfinite(first) ? first : 0;
    s->span = isfinite(last) ? last - s->t0 : 0;
    s->from = s->sel->has_start ? s->sel->start : 0;
    s->to = s->sel->has_end ? s->sel->end : s->span;
    s->cut = INFINITY;
    size_t n = 0;
    for (int k = 0; k < j->nranks; k++)
        for (size_t i = 0; i < j->view[k].ncalls; i++)
            n += embedded(s, k, i);
    *selected = n;
    if (n <= MWC_TIMELINE_MAX_CALLS)
        return 0;
    double *enter = malloc(n * sizeof *enter);
    if (enter == NULL)
        return -1;
    size_t m = 0;
    for (int k = 0; k < j->nranks; k++)
        for (size_t i = 0; i < j->view[k].ncalls; i++)
            if (embedded(s, k, i))
                enter[m++] = j->view[k].calls[i].enter - s->t0;
    qsort(enter, m, sizeof *enter, by_double);
    s->cut = enter[MWC_TIMELINE_MAX_CALLS];
    free(enter);
    return 0;
}

static void json_string(FILE *out, const char *str)
{
    mwc_json_string(out, str, strlen(str));
}

/* The function table of all ranks: each rank's own table mapped into it. */
typedef struct {
    const char **names;
    size_t n;
    int **map;                 /* by rank, by the rank's function index */
} functions;

static int function_table(const mwc_wait_input *j, functions *f)
{
    memset(f, 0, sizeof *f);
    f->map = calloc((size_t)j->nranks, sizeof *f->map);
    if (f->map == NULL)
        return -1;
    for (int k = 0; k < j->nranks; k++) {
        const mwc_trace_rank *r = &j->ranks[k];
        if (r->nnames == 0)
            continue;
        if ((f->map[k] = malloc((size_t)r->nnames * sizeof *f->map[k])) == NULL)
            return -1;
        for (int i = 0; i < r->nnames; i++) {
            f->map[k][i] = -1;
            if (r->names[i] == NULL)   /* an id the file never named: no call has it */
                continue;
            size_t at = 0;
            while (at < f->n && strcmp(f->names[at], r->names[i]) != 0)
                at++;
            if (at == f->n) {
                const char **more = realloc(f->names, (f->n + 1) * sizeof *more);
                if (more == NULL)
                    return -1;
                f->names = more;
                f->names[f->n++] = r->names[i];
            }
            f->map[k][i] = (int)at;
        }
    }
    return 0;
}

static void functions_free(functions *f, int nranks)
{
    if (f->map != NULL)
        for (int k = 0; k < nranks; k++)
            free(f->map[k]);
    free(f->map);
    free(f->names);
}

/* What the page holds and what it leaves out, as one JSON object. */
static void write_data(FILE *out, const selection *s, const functions *f, const mww_result *r,
                       const char *spec, const char *program, size_t selected)
{
    const mwc_wait_input *j = s->j;
    size_t total = 0, calls = 0, messages = 0, waits = 0;
    int rows = 0;
    fputs("{\"trace\":", out);
    json_string(out, spec);
    fprintf(out, ",\"ranks\":%d,\"window\":[%.9f,%.9f],\"functions\":[", j->nranks, s->from,
            s->cut < s->to ? s->cut : s->to);
    for (size_t i = 0; i < f->n; i++) {
        fputs(i ? "," : "", out);
        json_string(out, f->names[i]);
    }
    fputs("],\"patterns\":[", out);
    for (int p = 0; p < MWW_PATTERNS; p++) {
        fputs(p ? "," : "", out);
        json_string(out, mww_pattern_name(p));
    }
    fputs("],\"pattern_keys\":[", out);
    for (int p = 0; p < MWW_PATTERNS; p++) {
        fputs(p ? "," : "", out);
        json_string(out, mww_pattern_key(p));
    }
    fputs("],\n\"rows\":[", out);
    for (int k = 0; k < j->nranks; k++) {
        total += j->view[k].ncalls;
        if (!mwc_select_rank(s->sel, k))
            continue;
        fprintf(out, "%s\n{\"rank\":%d,\"calls\":[", rows++ ? "," : "", k);
        size_t n = 0;
        for (size_t i = 0; i < j->view[k].ncalls; i++) {
            if (!embedded(s, k, i))
                continue;
            const mww_call *c = &j->view[k].calls[i];
            fprintf(out, "%s%d,%.9f,%.9f", n++ ? "," : "", f->map[k][j->ranks[k].calls[i].fn],
                    c->enter - s->t0, c->leave - s->t0);
        }
        calls += n;
        fputs("]}", out);
    }
    fputs("],\n\"messages\":[", out);
    for (size_t i = 0; i < r->nmatched; i++) {
        const mww_message *m = &r->matched[i];
        if (!embedded(s, m->send_rank, m->send_call) || !embedded(s, m->recv_rank, m->recv_call))
            continue;
        fprintf(out, "%s[%d,%.9f,%d,%.9f]", messages++ ? "," : "", m->send_rank,
                j->view[m->send_rank].calls[m->send_call].enter - s->t0, m->recv_rank,
                j->view[m->recv_rank].calls[m->recv_call].leave - s->t0);
    }
    fputs("],\n\"waits\":[", out);
    for (size_t i = 0; i < r->nwaits; i++) {
        const mww_wait *w = &r->waits[i];
        if (!embedded(s, w->victim, w->victim_call))
            continue;
        double start = j->view[w->victim].calls[w->victim_call].enter - s->t0;
        fprintf(out, "%s[%d,%.9f,%.9f,%d,%d,%zu]", waits++ ? "," : "", w->victim, start,
                start + w->seconds, w->pattern, w->rank, w->cause);
    }
    fprintf(out, "],\n\"left_out\":{\"ranks\":%d,\"calls\":%zu,\"messages\":%zu,\"waits\":%zu,"
                 "\"limit\":%d,\"limited\":%s},\n\"analysis\":",
            j->nranks - rows, total - calls, r->nmatched - messages, r->nwaits - waits,
            MWC_TIMELINE_MAX_CALLS, selected > MWC_TIMELINE_MAX_CALLS ? "true" : "false");
    mwc_wait_json(out, j, r, program);
    fputs("}\n", out);
}

int mwc_timeline_page(const char *spec, const char *out_path, const char *program,
                      const mwc_timeline_select *sel, int quiet)
{
    mwc_wait_input j;
    mww_result r;
    if (mwc_wait_load_analyze(spec, 1, &j, &r, quiet) != 0)
        return 1;
    int rc = 1, shown = 0;
    for (int k = 0; k < j.nranks; k++)
        shown += mwc_select_rank(sel, k);
    selection s = {&j, sel, 0, 0, 0, INFINITY, 0};
    functions f;
    size_t selected = 0;
    char *data = NULL;
    size_t len = 0;
    FILE *mem = NULL;
    if (shown == 0) {
        fprintf(stderr, "mpiwatch: --ranks: the trace has ranks 0 to %d, none of them chosen\n",
                j.nranks - 1);
        goto out;
    }
    if (function_table(&j, &f) != 0 || choose(&s, &selected) != 0 ||
        (mem = open_memstream(&data, &len)) == NULL) {
        fprintf(stderr, "mpiwatch: out of memory writing the timeline\n");
        functions_free(&f, j.nranks);
        goto out;
    }
    if (selected == 0)
        fprintf(stderr, "mpiwatch: no call of the chosen ranks is between %g and %g s after the "
                        "trace's first call (its calls end at %g s); no page written\n",
                s.from, s.to, s.span);
    write_data(mem, &s, &f, &r, spec, program, selected);
    functions_free(&f, j.nranks);
    if (fclose(mem) != 0) {
        fprintf(stderr, "mpiwatch: out of memory writing the timeline\n");
        goto out;
    }
    mwc_wait_input_warn(&j, quiet);
    if (selected > 0) {
        rc = mwc_page_write_file(out_path, mw_timeline_head, mw_timeline_tail, data, len, quiet);
        if (rc == 0 && !quiet && selected > MWC_TIMELINE_MAX_CALLS)
            fprintf(stderr, "mpiwatch: %zu calls chosen: the page holds the first %d, up to "
                            "%.6f s (give --window or --ranks for the rest)\n",
                    selected, MWC_TIMELINE_MAX_CALLS, s.cut);
        if (rc == 0 && j.problems != 0)
            rc = 1;
    }
out:
    free(data);
    mww_result_free(&r);
    mwc_wait_input_free(&j);
    return rc;
}
