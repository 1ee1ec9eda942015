/* The timeline in the HTML report at MPI_Finalize (report/timeline_part.h). */
#include "report/timeline_part.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/state.h"
#include "core/warn.h"
#include "core/yielding_collectives.h"
#include "mw_functions.h"
#include "report/matrix_file.h"
#include "report/report.h"
#include "timeline_select.h"

enum { ROWS, MESSAGES, WAITS, PARTS };
/* What the page leaves out, summed over the ranks (left_out). */
enum { ALL_CALLS, SHOWN_CALLS, ALL_MESSAGES, SHOWN_MESSAGES, ALL_WAITS, SHOWN_WAITS, SHOWN_RANKS,
       LIMITED, COUNTS };

struct mw_timeline_page {
    char path[MW_MATRIX_PATH_MAX];
    uint64_t part[PARTS];       /* bytes of each part in the file, one after the other */
    double from, to;            /* the window embedded, seconds from the first call */
    uint64_t count[COUNTS];
    int fns[MW_FN_COUNT], nfns; /* the functions' ids, as the page numbers them */
};

#define WORDS ((MW_FN_COUNT + 63) / 64)

/* The part of the trace chosen: MPIWATCH_TIMELINE_RANKS and _WINDOW, with
 * the grammar of the client's --ranks and --window (a bad value is said by
 * rank 0 and the whole is taken). */
static void choose(mwc_timeline_select *sel)
{
    char err[256];
    const char *ranks = getenv("MPIWATCH_TIMELINE_RANKS"), *window = getenv("MPIWATCH_TIMELINE_WINDOW");
    int loud = mw_state.world_rank == 0;
    memset(sel, 0, sizeof *sel);
    if (ranks != NULL && *ranks != '\0' && mwc_ranks_parse(ranks, sel, err, sizeof err) != 0) {
        sel->nranges = 0;
        if (loud)
            mw_warn("MPIWATCH_TIMELINE_RANKS='%s': %s; the report's timeline shows every rank",
                    ranks, err);   /* err: what to give */
    }
    if (window != NULL && *window != '\0' && mwc_window_parse(window, sel, err, sizeof err) != 0) {
        sel->has_start = sel->has_end = 0;
        if (loud)
            mw_warn("MPIWATCH_TIMELINE_WINDOW='%s': %s; the report's timeline shows the whole run",
                    window, err);
    }
}

typedef struct {
    const mw_wait_local *l;
    const mwc_timeline_select *sel;
    double t0, cut;
    int shown;                  /* this rank's row is on the page */
} part_rule;

static int embedded(const part_rule *p, double enter, double leave)
{
    return mwc_select_span(p->sel, enter - p->t0, leave - p->t0) && enter - p->t0 < p->cut;
}

static int by_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static size_t count_before(const double *sorted, size_t n, double t)
{
    size_t lo = 0, hi = n;   /* the first entry at t or later */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (sorted[mid] < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The cut, when the ranks chose more calls than a page holds (collective;
 * total and span alike on every rank): the latest time before which the
 * chosen calls of all ranks enter at most MW_TIMELINE_PAGE_CALLS times,
 * found by halving [0, span] to a nanosecond, one MPI_Allreduce a step. A
 * rank without memory for its entries counts them all before any time (the
 * page then holds fewer). */
static int find_cut(const part_rule *p, uint64_t chosen, uint64_t total, double span,
                    MPI_Comm comm, double *cut)
{
    *cut = INFINITY;
    if (total <= MW_TIMELINE_PAGE_CALLS)
        return MPI_SUCCESS;
    double *enter = malloc((chosen ? chosen : 1) * sizeof *enter);
    size_t n = 0;
    for (size_t i = 0; enter != NULL && i < p->l->calls; i++) {
        const mw_timeline_call *c = &p->l->timeline_calls[i];
        if (p->shown && embedded(p, c->enter, c->leave))
            enter[n++] = c->enter - p->t0;
    }
    if (enter != NULL)
        qsort(enter, n, sizeof *enter, by_double);
    double lo = 0, hi = span;
    int rc = MPI_SUCCESS;
    for (int step = 0; step < 64 && hi - lo > 1e-9; step++) {
        double mid = lo + (hi - lo) / 2;
        uint64_t mine = enter != NULL ? count_before(enter, n, mid) : chosen, all = 0;
        if ((rc = mw_allreduce(&mine, &all, 1, MPI_UINT64_T, MPI_SUM, comm)) != MPI_SUCCESS)
            break;
        if (all <= MW_TIMELINE_PAGE_CALLS)
            lo = mid;
        else
            hi = mid;
    }
    free(enter);
    *cut = lo;
    return rc;
}

/* The page's number of each function, from the ids every rank's calls use. */
static void function_numbers(const uint64_t *used, int *number, struct mw_timeline_page *t)
{
    int n = 0;
    for (int id = 0; id < MW_FN_COUNT; id++) {
        number[id] = -1;
        if (used[id / 64] >> (id % 64) & 1) {
            number[id] = n;
            if (t != NULL)
                t->fns[n] = id;
            n++;
        }
    }
    if (t != NULL)
        t->nfns = n;
}

/* This rank's three parts as JSON text, each item after a comma. */
static int format_parts(const part_rule *p, const int *number, const size_t *cause_of,
                        char **text, size_t *len, uint64_t *count)
{
    const mw_wait_local *l = p->l;
    int me = mw_state.world_rank;
    FILE *f[PARTS];
    int ok = 1;
    for (int k = 0; k < PARTS; k++)
        if ((f[k] = open_memstream(&text[k], &len[k])) == NULL)
            ok = 0;
    if (ok && p->shown) {
        fprintf(f[ROWS], ",\n{\"rank\":%d,\"calls\":[", me);
        uint64_t n = 0;
        for (size_t i = 0; i < l->calls; i++) {
            const mw_timeline_call *c = &l->timeline_calls[i];
            if (!embedded(p, c->enter, c->leave))
                continue;
            fprintf(f[ROWS], "%s%d,%.9f,%.9f", n++ ? "," : "", c->fn >= 0 ? number[c->fn] : -1,
                    c->enter - p->t0, c->leave - p->t0);
        }
        fputs("]}", f[ROWS]);
        count[SHOWN_CALLS] = n;
        count[SHOWN_RANKS] = 1;
    }
    for (size_t i = 0; ok && p->shown && i < l->timeline_nmessages; i++) {
        const mw_timeline_message *m = &l->timeline_messages[i];
        const mw_timeline_call *r = &l->timeline_calls[m->recv_call];
        /* the send's end is not shipped: its entry decides, as a point */
        if (!mwc_select_rank(p->sel, m->send_rank) || !embedded(p, m->send_enter, m->send_enter) ||
            !embedded(p, r->enter, r->leave))
            continue;
        fprintf(f[MESSAGES], ",[%d,%.9f,%d,%.9f]", m->send_rank, m->send_enter - p->t0, me,
                r->leave - p->t0);
        count[SHOWN_MESSAGES]++;
    }
    for (size_t i = 0; ok && p->shown && i < l->result.nwaits; i++) {
        const mww_wait *w = &l->result.waits[i];
        const mw_timeline_call *c = &l->timeline_calls[w->victim_call];
        if (!embedded(p, c->enter, c->leave))
            continue;
        size_t cause = cause_of != NULL && w->cause < l->result.ncauses ? cause_of[w->cause]
                                                                            : SIZE_MAX;
        fprintf(f[WAITS], ",[%d,%.9f,%.9f,%d,%d,%ld]", me, c->enter - p->t0,
                c->enter - p->t0 + w->seconds, w->pattern, w->rank,
                cause == SIZE_MAX ? -1L : (long)cause);
        count[SHOWN_WAITS]++;
    }
    for (int k = 0; k < PARTS; k++) {
        int failed = f[k] != NULL && ferror(f[k]);
        if (f[k] != NULL && (fclose(f[k]) != 0 || failed))
            ok = 0;
    }
    return ok ? 0 : -1;
}

int mw_timeline_part_write(const mw_wait_local *l, const size_t *cause_of, int want,
                           mw_job_summary *job, MPI_Comm comm)
{
    int root = mw_state.world_rank == 0, rc, fd = -1, ok = 1, all_ok = 0;
    int usable = !l->failed && (l->timeline_calls != NULL || l->calls == 0);
    char name[MW_MATRIX_PATH_MAX] = "";
    struct mw_timeline_page *t = NULL;
    mwc_timeline_select sel;
    char *text[PARTS] = {NULL, NULL, NULL};
    size_t len[PARTS] = {0, 0, 0};
    uint64_t count[COUNTS] = {0}, counts[COUNTS] = {0};
    uint64_t mine[PARTS] = {0}, before[PARTS] = {0}, total[PARTS] = {0};
    uint64_t chosen = 0, chosen_all = 0, used[WORDS] = {0}, used_all[WORDS];
    double ends[2] = {-INFINITY, -INFINITY}, ends_all[2], cut = INFINITY;
    int number[MW_FN_COUNT];
    part_rule p = {l, &sel, 0, INFINITY, 0};

    /* Rank 0 creates the file beside the reports and names it, or names none. */
    if (root && want) {
        t = calloc(1, sizeof *t);
        snprintf(name, sizeof name, "%.4096s/.mpiwatch-timeline.%ld.tmp", mw_state.config.outdir,
                 (long)getpid());
        fd = t != NULL ? open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600) : -1;
        if (fd < 0) {
            mw_warn("the HTML report has no timeline: cannot create %s (%s)", name,
                    t == NULL ? "out of memory" : strerror(errno));
            name[0] = '\0';
        }
    }
    if ((rc = mw_bcast(name, (int)sizeof name, MPI_CHAR, comm)) != MPI_SUCCESS || name[0] == '\0')
        goto out;
    choose(&sel);

    /* The page's time 0 (the first call of any rank), its last call's exit. */
    for (size_t i = 0; usable && i < l->calls; i++) {
        const mw_timeline_call *c = &l->timeline_calls[i];
        ends[0] = -c->enter > ends[0] ? -c->enter : ends[0];
        ends[1] = c->leave > ends[1] ? c->leave : ends[1];
    }
    if ((rc = mw_allreduce(ends, ends_all, 2, MPI_DOUBLE, MPI_MAX, comm)) != MPI_SUCCESS)
        goto out;
    p.t0 = isfinite(ends_all[0]) ? -ends_all[0] : 0;
    p.shown = usable && mwc_select_rank(&sel, mw_state.world_rank);

    /* The cut, when more calls were chosen than a page holds. */
    for (size_t i = 0; p.shown && i < l->calls; i++)
        chosen += (uint64_t)embedded(&p, l->timeline_calls[i].enter, l->timeline_calls[i].leave);
    if ((rc = mw_allreduce(&chosen, &chosen_all, 1, MPI_UINT64_T, MPI_SUM, comm)) != MPI_SUCCESS)
        goto out;
    if ((rc = find_cut(&p, chosen, chosen_all, ends_all[1] - p.t0, comm, &cut)) !=
        MPI_SUCCESS)
        goto out;
    p.cut = cut;

    /* The functions the page names, alike on every rank. */
    for (size_t i = 0; p.shown && i < l->calls; i++) {
        const mw_timeline_call *c = &l->timeline_calls[i];
        if (c->fn >= 0 && embedded(&p, c->enter, c->leave))
            used[c->fn / 64] |= 1ull << (c->fn % 64);
    }
    if ((rc = mw_allreduce(used, used_all, WORDS, MPI_UINT64_T, MPI_BOR, comm)) != MPI_SUCCESS)
        goto out;
    function_numbers(used_all, number, t);

    /* Each rank its parts, at offsets from the scan. */
    if (usable) {
        count[ALL_CALLS] = l->calls;
        count[ALL_MESSAGES] = l->timeline_nmessages;
        count[ALL_WAITS] = l->result.nwaits;
    }
    count[LIMITED] = isfinite(p.cut);
    ok = ok && format_parts(&p, number, cause_of, text, len, count) == 0;
    for (int k = 0; ok && k < PARTS; k++)
        mine[k] = len[k];
    if ((rc = mw_exscan(mine, before, PARTS, MPI_UINT64_T, MPI_SUM, comm)) != MPI_SUCCESS ||
        (rc = mw_allreduce(mine, total, PARTS, MPI_UINT64_T, MPI_SUM, comm)) != MPI_SUCCESS)
        goto out;
    if (root)
        memset(before, 0, sizeof before);   /* MPI_Exscan leaves rank 0's undefined */
    else
        fd = open(name, O_WRONLY | O_CLOEXEC);
    ok = ok && fd >= 0;
    off_t at = 0;
    for (int k = 0; k < PARTS; k++) {
        ok = ok && mw_write_at(fd, text[k], len[k], at + (off_t)before[k]);
        at += (off_t)total[k];
    }
    if (fd >= 0 && close(fd) != 0)
        ok = 0;
    fd = -1;
    if ((rc = mw_allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm)) != MPI_SUCCESS ||
        (rc = mw_reduce(count, counts, COUNTS, MPI_UINT64_T, MPI_SUM, comm)) != MPI_SUCCESS)
        goto out;
    if (root && !all_ok) {
        mw_warn("the HTML report has no timeline: a rank could not write its part into %s "
                "(every rank must see the report's folder)", name);
    } else if (root && t != NULL && job != NULL) {
        snprintf(t->path, sizeof t->path, "%s", name);
        memcpy(t->part, total, sizeof t->part);
        memcpy(t->count, counts, sizeof t->count);
        t->from = sel.has_start ? sel.start : 0;
        t->to = sel.has_end ? sel.end : (isfinite(ends_all[1]) ? ends_all[1] - p.t0 : 0);
        if (isfinite(p.cut) && p.cut < t->to)
            t->to = p.cut;
        job->timeline = t;
        job->page_timeline = mw_timeline_page_json;
        t = NULL;
        name[0] = '\0';   /* the job's now: removed once the page is written */
    }
out:
    for (int k = 0; k < PARTS; k++)
        free(text[k]);
    if (fd >= 0)
        close(fd);
    if (root && name[0] != '\0')
        unlink(name);
    free(t);
    return rc;
}

/* The file's bytes from offset, n of them, into the page, a block at a time;
 * the first byte (the comma before the first item) left out. 0, or -1. */
static int copy_part(FILE *out, int fd, off_t offset, uint64_t n)
{
    char buf[1 << 16];
    int first = 1;
    while (n > 0) {
        size_t want = n < sizeof buf ? (size_t)n : sizeof buf;
        ssize_t got = pread(fd, buf, want, offset);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return -1;
        if (fwrite(buf + first, 1, (size_t)got - (size_t)first, out) != (size_t)got - (size_t)first)
            return -1;
        first = 0;
        offset += got;
        n -= (uint64_t)got;
    }
    return 0;
}

void mw_timeline_page_json(FILE *out, const mw_job_summary *job)
{
    const struct mw_timeline_page *t = job->timeline;
    static const char *const names[PARTS] = {"rows", "messages", "waits"};
    int fd = open(t->path, O_RDONLY | O_CLOEXEC), ok = fd >= 0;
    fprintf(out, "{\"ranks\": %d, \"window\": [%.9f, %.9f], \"functions\": [", job->ranks,
            t->from, t->to);
    for (int i = 0; i < t->nfns; i++) {
        fputs(i ? ", " : "", out);
        mw_json_string(out, mw_fn_names[t->fns[i]]);
    }
    fputs("],\n  \"patterns\": [", out);
    for (int k = 0; k < MWW_PATTERNS; k++) {
        fputs(k ? ", " : "", out);
        mw_json_string(out, mww_pattern_name(k));
    }
    fputs("], \"pattern_keys\": [", out);
    for (int k = 0; k < MWW_PATTERNS; k++) {
        fputs(k ? ", " : "", out);
        mw_json_string(out, mww_pattern_key(k));
    }
    fputs("]", out);
    off_t at = 0;
    for (int k = 0; k < PARTS; k++) {
        fprintf(out, ",\n  \"%s\": [", names[k]);
        /* a part that cannot be read is left empty: the JSON stays whole */
        ok = ok && copy_part(out, fd, at, t->part[k]) == 0;
        at += (off_t)t->part[k];
        fputs("]", out);
    }
    const uint64_t *c = t->count;
    fprintf(out, ",\n  \"left_out\": {\"ranks\": %llu, \"calls\": %llu, \"messages\": %llu, "
                 "\"waits\": %llu, \"limit\": %d, \"limited\": %s}}",
            (unsigned long long)((uint64_t)job->ranks - c[SHOWN_RANKS]),
            (unsigned long long)(c[ALL_CALLS] - c[SHOWN_CALLS]),
            (unsigned long long)(c[ALL_MESSAGES] - c[SHOWN_MESSAGES]),
            (unsigned long long)(c[ALL_WAITS] - c[SHOWN_WAITS]), MW_TIMELINE_PAGE_CALLS,
            c[LIMITED] ? "true" : "false");
    if (fd >= 0)
        close(fd);
    if (!ok)
        mw_warn("the HTML report's timeline is incomplete: reading %s failed", t->path);
}

void mw_timeline_part_free(mw_job_summary *job)
{
    if (job->timeline == NULL)
        return;
    unlink(job->timeline->path);
    free(job->timeline);
    job->timeline = NULL;
}
