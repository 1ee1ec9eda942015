/* The out-of-line half of the call sites' memos (traffic/memo.h): filling a
 * memo from the thread's handle caches, and the end of a call whose ranks
 * the inline path leaves to the general rules. */
#include "core/handles.h"
#include "core/state.h"
#include "traffic/memo.h"
#include "traffic/traffic.h"

/* Every world rank of a map lies in MPI_COMM_WORLD (not so for processes
 * spawned or connected later): then the inline path needs no check. */
static int all_in_world(const int *world, int n, int world_size)
{
    if (world == mw_identity_map)
        return n <= world_size;
    for (int i = 0; i < n; i++)
        if ((unsigned)world[i] >= (unsigned)world_size)
            return 0;
    return 1;
}

/* A memo's keys as C handles. */
static MPI_Datatype memo_type(uintptr_t key, int kind)
{
    return kind & MW_MEMO_FORTRAN ? PMPI_Type_f2c((MPI_Fint)key) : (MPI_Datatype)key;
}

static MPI_Comm memo_comm(uintptr_t key, int kind)
{
    return kind & MW_MEMO_FORTRAN ? PMPI_Comm_f2c((MPI_Fint)key) : (MPI_Comm)key;
}

mw_site *mw_memo_fill(mw_site *e)
{
    mw_thread *t = mw_self;
    mw_memo *m = &e->memo;
    uintptr_t type_key = m->type, comm_key = m->comm;
    int kind = m->kind;
    /* The MPI calls below are ours: inside the guard, not profiled. */
    mw_depth = 1;
    m->type = 0;
    MPI_Datatype type = memo_type(type_key, kind);
    MPI_Comm comm = memo_comm(comm_key, kind);
    mw_handles_check(t);
    int64_t size = mw_type_size_cached(t, type);
    /* Last: a look-up that drops a rank map empties the memos, this one's
     * fields included, so none may come after the map is read. */
    const mw_group_slot *g = mw_comm_facts(t, comm);
    int ok = g->size > 0 && g->world != NULL && size >= 0 && mw_pairs_attach(t) &&
             all_in_world(g->world, g->size, t->world_size);
    mw_depth = 0;
    if (!ok)
        return NULL;
    m->comm = comm_key;
    m->world = g->world;
    m->peers = g->size;
    m->size = size;
    m->hist = t->hist[mw_site_fn(e->key)];
    m->pairs = t->pairs;
    if (mw_site_address(e->key) == 0)   /* fn[]: the site table is full */
        __atomic_store_n(&t->fn_memos, 1, __ATOMIC_RELAXED);
    m->type = type_key;   /* last: the memo is valid from here */
    return e;
}

#if MW_SITE_TRAMPOLINE
/* mw_memo_fill(rax = site) -> rax, keeping every other general register (the
 * body's arguments are live in them) and the vector registers (GCC may park
 * values there across the call; mw_memo_fill's callees use them freely). */
__asm__(".text\n"
        ".globl mw_memo_fill_x86\n"
        ".hidden mw_memo_fill_x86\n"
        ".type mw_memo_fill_x86, @function\n"
        "mw_memo_fill_x86:\n"
        "    push %rcx\n    push %rdx\n    push %rsi\n    push %rdi\n"
        "    push %r8\n    push %r9\n    push %r10\n    push %r11\n"
        "    push %rbp\n    mov %rsp, %rbp\n    and $-16, %rsp\n"
        "    sub $256, %rsp\n"
        "    movdqu %xmm0, 0(%rsp)\n    movdqu %xmm1, 16(%rsp)\n"
        "    movdqu %xmm2, 32(%rsp)\n    movdqu %xmm3, 48(%rsp)\n"
        "    movdqu %xmm4, 64(%rsp)\n    movdqu %xmm5, 80(%rsp)\n"
        "    movdqu %xmm6, 96(%rsp)\n    movdqu %xmm7, 112(%rsp)\n"
        "    movdqu %xmm8, 128(%rsp)\n    movdqu %xmm9, 144(%rsp)\n"
        "    movdqu %xmm10, 160(%rsp)\n    movdqu %xmm11, 176(%rsp)\n"
        "    movdqu %xmm12, 192(%rsp)\n    movdqu %xmm13, 208(%rsp)\n"
        "    movdqu %xmm14, 224(%rsp)\n    movdqu %xmm15, 240(%rsp)\n"
        "    mov %rax, %rdi\n"
        "    call mw_memo_fill\n"
        "    movdqu 0(%rsp), %xmm0\n    movdqu 16(%rsp), %xmm1\n"
        "    movdqu 32(%rsp), %xmm2\n    movdqu 48(%rsp), %xmm3\n"
        "    movdqu 64(%rsp), %xmm4\n    movdqu 80(%rsp), %xmm5\n"
        "    movdqu 96(%rsp), %xmm6\n    movdqu 112(%rsp), %xmm7\n"
        "    movdqu 128(%rsp), %xmm8\n    movdqu 144(%rsp), %xmm9\n"
        "    movdqu 160(%rsp), %xmm10\n    movdqu 176(%rsp), %xmm11\n"
        "    movdqu 192(%rsp), %xmm12\n    movdqu 208(%rsp), %xmm13\n"
        "    movdqu 224(%rsp), %xmm14\n    movdqu 240(%rsp), %xmm15\n"
        "    mov %rbp, %rsp\n    pop %rbp\n"
        "    pop %r11\n    pop %r10\n    pop %r9\n    pop %r8\n"
        "    pop %rdi\n    pop %rsi\n    pop %rdx\n    pop %rcx\n"
        "    ret\n"
        ".size mw_memo_fill_x86, .-mw_memo_fill_x86\n");
#endif

int mw_xfer_finish(int ret, int id)
{
    mw_site *e = mw_tls.xfer.site;
    int kind = e->memo.kind;
    MPI_Datatype type = memo_type(e->memo.type, kind);
    MPI_Comm comm = memo_comm(e->memo.comm, kind);
    int64_t count = mw_tls.xfer.count;
    int peer = mw_tls.xfer.peer;
    /* A Fortran body keeps no status: its receives from MPI_ANY_SOURCE take
     * the general way (fortran_calls.py), and a send-receive's source
     * decides alone. */
    const MPI_Status *status = kind & MW_MEMO_FORTRAN ? NULL : mw_tls.xfer.status;
    mw_call c;
    switch (kind & ~MW_MEMO_FORTRAN) {
    case MW_MEMO_SEND:
        mw_note_send(&c, count, type, peer, 0, comm);
        break;
    case MW_MEMO_RECV:
        mw_note_recv(&c, count, type, peer, 0, comm, status);
        break;
    case MW_MEMO_SENDRECV:
        mw_note_sendrecv(&c, count, type, peer, 0, mw_tls.xfer.count2, type,
                         mw_tls.xfer.peer2, comm, status);
        break;
    default:
        mw_note_allreduce(&c, count, type, comm);
        break;
    }
    mw_account(id, &c, &e->s);
    mw_depth = 0;
    return ret;
}
