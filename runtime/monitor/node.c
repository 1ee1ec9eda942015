/* Node leaders (MPIWATCH_NODE_SIZE, docs/protocol.md): which ranks share a
 * node, who leads it, and how the others reach the leader. Runs once, in
 * mw_monitor_start, collectively over the private communicator: a node is a
 * communicator split from it (MPI_COMM_TYPE_SHARED for real nodes, or K
 * consecutive ranks for pretend ones), its lowest rank leads. The leader
 * sends the node its local socket's name and a fresh secret over MPI, so
 * only the job's own ranks learn the secret. The node's communicator is kept
 * until MPI_Finalize: the leader stops its relay only once every rank of the
 * node has ended its stream (mw_node_finish), however late a starved rank
 * gets there. */
#include <stdio.h>
#include <string.h>

#include "core/yielding_collectives.h"
#include "monitor/monitor.h"
#include "core/state.h"
#include "core/warn.h"

/* What the leader tells its node: its world rank (-1: no relay), the local
 * socket's name and the secret a member proves itself with. */
typedef struct {
    int leader;
    char name[MW_LOCAL_NAME_MAX];
    char secret[MWP_TOKEN_HEX + 1];
} node_news;

static MPI_Comm node_comm = MPI_COMM_NULL;   /* while this rank's node has a leader */
static int leads;

static int split_node(MPI_Comm comm, MPI_Comm *node)
{
    int k = mw_monitor_opts.node_size;
    if (k == MW_NODE_HOST)
        return PMPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, mw_state.world_rank,
                                    MPI_INFO_NULL, node);
    return PMPI_Comm_split(comm, mw_state.world_rank / k, mw_state.world_rank, node);
}

const mw_transport *mw_node_open(const char *token)
{
    if (mw_monitor_opts.node_size == 0)
        return NULL;
    if (mw_monitor_opts.transport == MW_TRANSPORT_MPI) {
        if (mw_state.world_rank == 0)
            mw_warn("MPIWATCH_NODE_SIZE needs the TCP transport; with MPIWATCH_TRANSPORT=mpi "
                    "every rank serves its own client");
        return NULL;
    }
    MPI_Comm comm = mw_private_comm(), node = MPI_COMM_NULL;
    if (comm == MPI_COMM_NULL || split_node(comm, &node) != MPI_SUCCESS) {
        if (mw_state.world_rank == 0)
            mw_warn("monitor: cannot group the ranks into nodes (MPIWATCH_NODE_SIZE); every rank "
                    "serves its own client");
        return NULL;
    }
    int node_rank = 0;
    PMPI_Comm_rank(node, &node_rank);
    node_news news;
    memset(&news, 0, sizeof news);
    news.leader = -1;
    if (node_rank == 0 && token != NULL && mw_monitor_token(news.secret) == 0 &&
        mw_relay_open(mw_monitor_opts.bind, token, news.secret, news.name) == 0)
        news.leader = mw_state.world_rank;
    int rc = PMPI_Bcast(&news, (int)sizeof news, MPI_BYTE, 0, node);
    if (rc != MPI_SUCCESS || news.leader < 0) {
        PMPI_Comm_free(&node);
        if (node_rank == 0)
            mw_warn("monitor: rank %d cannot lead its node; the node's ranks serve their own "
                    "clients", mw_state.world_rank);
        if (node_rank == 0 && news.leader >= 0)
            mw_relay_stop(1);
        return NULL;
    }
    news.name[sizeof news.name - 1] = '\0';
    news.secret[MWP_TOKEN_HEX] = '\0';
    mw_local_open(news.leader, news.name, news.secret);
    node_comm = node;
    leads = node_rank == 0;
    return &mw_local_transport;
}

void mw_node_finish(void)
{
    if (node_comm == MPI_COMM_NULL)
        return;
    /* Past this barrier every rank of the node has flushed its GOODBYE and
     * closed its connection: what is left is in the leader's sockets. The
     * barrier naps while it waits: a rank here has nothing left to compute,
     * and on a node with more ranks than cores MPI's busy waiting would take
     * the CPU from the leader's relay and the client, which still have the
     * node's last bytes to move. */
    mw_barrier(node_comm);
    if (leads)
        mw_relay_stop(0);
    PMPI_Comm_free(&node_comm);
}
