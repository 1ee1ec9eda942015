"""The spec's vocabulary: parameter roles, sides, function categories.

A *role* says what a parameter means to a profiling layer (the buffer, the
element count, the peer rank, the communicator...), independent of its
position or C type.  A *side* says which half of a transfer a buffer-like
parameter belongs to (send or receive; origin, target, result or compare for
one-sided operations).  A *category* groups MPI functions the way the
generated C files and the hooks do.

Everything here is an immutable constant or a pure function; the rules are
documented in docs/spec.md.
"""

from __future__ import annotations

import re
from types import MappingProxyType
from typing import Mapping

ROLES: frozenset[str] = frozenset({
    "buffer", "count", "displacement", "datatype", "peer", "root", "rank",
    "tag", "comm", "request", "status", "op", "info", "win", "file", "group",
    "offset", "flag", "string", "errhandler", "keyval", "attribute",
    "session", "message", "index", "size", "error", "value",
})

SIDES: frozenset[str] = frozenset({
    "send", "recv", "origin", "target", "result", "compare",
})

CATEGORIES: tuple[str, ...] = (
    "environment", "send", "recv", "sendrecv", "probe", "completion",
    "collective", "rma", "io", "communicator", "topology", "group",
    "datatype", "info", "errhandler", "attribute", "session", "tools",
    "other",
)


def _kinds(role: str, *kinds: str) -> dict[str, str]:
    """Map each of ``kinds`` to ``role`` (helper to build KIND_ROLES)."""
    return {kind: role for kind in kinds}


# Every parameter and return ``kind`` found in the MPI Forum's apis.json
# (MPI 4.1 data), mapped to a role.  Kinds not listed map to "value".
# RANK and RANK_NNI are listed as "rank" but resolved by rank_role().
KIND_ROLES: Mapping[str, str] = MappingProxyType({
    **_kinds("buffer", "BUFFER", "C_BUFFER", "C_BUFFER2", "C_BUFFER3",
             "C_BUFFER4"),
    **_kinds("count", "POLYXFER_NUM_ELEM_NNI", "POLYXFER_NUM_ELEM",
             "XFER_NUM_ELEM", "XFER_NUM_ELEM_NNI", "XFER_NUM_ELEM_SMALL",
             "POLYDTYPE_NUM_ELEM", "POLYDTYPE_NUM_ELEM_NNI",
             "POLYDTYPE_NUM_ELEM_PI"),
    **_kinds("displacement", "POLYDISPLACEMENT",
             "POLYDISPLACEMENT_AINT_COUNT", "POLYDISPLACEMENT_COUNT",
             "DISPLACEMENT", "DISPLACEMENT_NNI", "RMA_DISPLACEMENT_NNI",
             "POLYRMA_DISPLACEMENT", "POLYDISPOFFSET", "DISPOFFSET_SMALL",
             "LOCATION_SMALL", "POLYLOCATION"),
    **_kinds("size", "COMM_SIZE", "COMM_SIZE_PI", "WINDOW_SIZE",
             "WIN_ATTACH_SIZE", "ALLOC_MEM_NUM_BYTES", "NUM_BYTES",
             "NUM_BYTES_SMALL", "POLYNUM_BYTES", "POLYNUM_BYTES_NNI",
             "POLYDTYPE_PACK_SIZE", "TYPECLASS_SIZE"),
    **_kinds("rank", "RANK", "RANK_NNI"),
    **_kinds("attribute", "ATTRIBUTE_VAL", "ATTRIBUTE_VAL_10"),
    **_kinds("error", "ERROR_CODE", "ERROR_CODE_SHOW_INTENT", "ERROR_CLASS"),
    **_kinds("flag", "LOGICAL", "LOGICAL_OPTIONAL"),
    "DATATYPE": "datatype",
    "TAG": "tag",
    "COMMUNICATOR": "comm",
    "REQUEST": "request",
    "STATUS": "status",
    "OPERATION": "op",
    "INFO": "info",
    "WINDOW": "win",
    "FILE": "file",
    "GROUP": "group",
    "OFFSET": "offset",
    "STRING": "string",
    "ERRHANDLER": "errhandler",
    "KEYVAL": "keyval",
    "SESSION": "session",
    "MESSAGE": "message",
    "INDEX": "index",
    **_kinds("value",
             "ACCESS_MODE", "ARGUMENT_COUNT", "ARGUMENT_LIST", "ARRAY_LENGTH",
             "ARRAY_LENGTH_NNI", "ARRAY_LENGTH_PI", "ASSERT", "BIND_TYPE",
             "CALLBACK_SAFETY", "CAT_INDEX", "COLOR", "COMBINER",
             "COMM_COMPARISON", "COORDINATE", "CVAR", "CVAR_INDEX",
             "CVAR_INDEX_SPECIAL", "DEGREE", "DIMENSION", "DISTRIB_ENUM",
             "DROPPED_COUNT", "DTYPE_DISTRIBUTION", "EVENT_CB_FUNCTION",
             "EVENT_DROP_CB_FUNCTION", "EVENT_FREE_CB_FUNCTION",
             "EVENT_INDEX", "EVENT_INSTANCE", "EVENT_REGISTRATION",
             "EXTRA_STATE", "EXTRA_STATE2", "F08_STATUS", "F90_COMM",
             "F90_DATATYPE", "F90_ERRHANDLER", "F90_FILE", "F90_GROUP",
             "F90_INFO", "F90_MESSAGE", "F90_OP", "F90_REQUEST",
             "F90_SESSION", "F90_STATUS", "F90_WIN", "FILE_DESCRIPTOR",
             "FUNCTION", "GENERIC_DTYPE_COUNT", "GENERIC_DTYPE_INT",
             "GROUP_COMPARISON", "INFO_VALUE_LENGTH", "KEY", "KEY_INDEX",
             "LOCK_TYPE", "MATH", "NOTHING", "NUM_DIMS", "ORDER",
             "PARTITION", "POLYDTYPE_STRIDE_BYTES", "POLYFUNCTION",
             "POLYNUM_PARAM_VALUES", "PROCESS_GRID_SIZE", "PROFILE_LEVEL",
             "PVAR", "PVAR_CLASS", "PVAR_INDEX", "PVAR_SESSION",
             "SOURCE_INDEX", "SOURCE_ORDERING", "SPLIT_TYPE",
             "STRING_2DARRAY", "STRING_ARRAY", "STRING_LENGTH",
             "THREAD_LEVEL", "TICK_RESOLUTION", "TOOLENUM_INDEX",
             "TOOLENUM_SIZE", "TOOLS_ENUM", "TOOLS_NUM_ELEM_SMALL",
             "TOOLS_TICK_COUNT", "TOOL_MPI_OBJ", "TOOL_VAR_VALUE",
             "TOOL_VAR_VERBOSITY", "TOPOLOGY_TYPE", "TYPECLASS",
             "UPDATE_MODE", "UPDATE_NUMBER", "VARARGS", "VARIABLE_SCOPE",
             "VERSION", "WALL_TIME", "WEIGHT"),
})

# Parameters whose apis.json kind describes their C type (MPI_Count, MPI_Aint)
# rather than their meaning: (kind, parameter name) -> role.
ROLE_OVERRIDES: Mapping[tuple[str, str], str] = MappingProxyType({
    ("POLYDTYPE_NUM_ELEM", "stride"): "value",       # MPI_Type_vector
    ("XFER_NUM_ELEM", "lb"): "displacement",         # MPI_Type_get_extent_x
    ("XFER_NUM_ELEM", "extent"): "displacement",
    ("XFER_NUM_ELEM", "true_lb"): "displacement",    # ..._true_extent_x
    ("XFER_NUM_ELEM", "true_extent"): "displacement",
    ("XFER_NUM_ELEM", "size"): "size",               # MPI_Type_size_x
    ("POLYXFER_NUM_ELEM", "size"): "size",           # MPI_Type_size
    ("NUM_BYTES", "count"): "count",                 # MPI_Get_elements_x
})

_PEER_NAMES = frozenset({"dest", "source", "target_rank"})


def kind_role(kind: str) -> str:
    """Return the role of an apis.json ``kind``; unknown kinds are "value"."""
    return KIND_ROLES.get(kind, "value")


def rank_role(kind: str, name: str, direction: str) -> str:
    """Return the role of a RANK or RANK_NNI parameter.

    ``root`` is the root of a rooted collective; an input named ``dest``,
    ``source`` or ``target_rank`` is the peer of a point-to-point or
    one-sided operation; any other rank (a translated rank, a leader, the
    caller's own rank, a list of neighbours) is plain ``rank``.  ``kind`` is
    accepted for symmetry with param_role() and does not change the answer.
    """
    del kind
    if name == "root":
        return "root"
    if direction == "in" and name in _PEER_NAMES:
        return "peer"
    return "rank"


def param_role(kind: str, name: str, direction: str) -> str:
    """Return a parameter's role from its apis.json kind, name, direction.

    RANK kinds are decided by rank_role(); a few parameters whose kind only
    names their C type are corrected by ROLE_OVERRIDES; everything else
    follows KIND_ROLES, and an unknown kind is "value".
    """
    if kind in ("RANK", "RANK_NNI"):
        return rank_role(kind, name, direction)
    override = ROLE_OVERRIDES.get((kind, name))
    if override is not None:
        return override
    return kind_role(kind)


def return_role(return_kind: str) -> str:
    """Return the role of a C return value from apis.json's ``return_kind``.

    ERROR_CODE and ERROR_CLASS are ``error``; handles returned by the
    ``*_f2c`` functions take their handle's role; Fortran handles (F90_*),
    times (WALL_TIME, TICK_RESOLUTION) and NOTHING are ``value``; addresses
    (LOCATION_SMALL, DISPLACEMENT from MPI_Aint_add/diff) are ``displacement``.
    """
    return kind_role(return_kind)


def _forms(*bases: str, init: bool = True) -> frozenset[str]:
    """Blocking, nonblocking (I*) and, if ``init``, persistent forms."""
    names = set(bases) | {"i" + base for base in bases}
    if init:
        names |= {base + "_init" for base in bases}
    return frozenset(names)


_EXACT: Mapping[str, frozenset[str]] = MappingProxyType({
    "environment": frozenset({
        "init", "init_thread", "finalize", "initialized", "finalized",
        "abort", "get_version", "get_library_version", "get_processor_name",
        "get_hw_resource_info", "wtime", "wtick", "pcontrol", "query_thread",
        "is_thread_main", "alloc_mem", "free_mem", "f_sync_reg", "sizeof",
    }),
    "send": _forms("send", "bsend", "ssend", "rsend") | {"psend_init"},
    "recv": frozenset({"recv", "irecv", "recv_init", "mrecv", "imrecv",
                       "precv_init"}),
    "sendrecv": _forms("sendrecv", "sendrecv_replace", init=False),
    "probe": _forms("probe", "mprobe", init=False),
    "completion": frozenset({"start", "startall", "cancel", "parrived"}),
    "collective": _forms(
        "barrier", "bcast", "gather", "gatherv", "scatter", "scatterv",
        "allgather", "allgatherv", "alltoall", "alltoallv", "alltoallw",
        "reduce", "allreduce", "reduce_scatter", "reduce_scatter_block",
        "scan", "exscan"),
    "rma": frozenset({"put", "get", "accumulate", "get_accumulate",
                      "fetch_and_op", "compare_and_swap", "rput", "rget",
                      "raccumulate", "rget_accumulate"}),
    "io": frozenset({"register_datarep"}),
    "communicator": frozenset({"open_port", "close_port", "lookup_name",
                               "publish_name", "unpublish_name"}),
    "topology": frozenset({"graphdims_get", "cartdim_get", "topo_test",
                           "dims_create"}),
    "datatype": frozenset({"get_address", "get_count", "aint_add",
                           "aint_diff", "reduce_local",
                           "status_set_cancelled"}),
    "errhandler": frozenset({"error_class", "error_string"}),
})

# Checked in this order after the exact names; the first match wins.
_PREFIXES: tuple[tuple[str, str], ...] = (
    ("buffer_", "environment"),
    ("wait", "completion"),
    ("test", "completion"),
    ("request_", "completion"),
    ("grequest_", "completion"),
    ("pready", "completion"),
    ("neighbor_", "collective"),
    ("ineighbor_", "collective"),
    ("win_", "rma"),
    ("file_", "io"),
    ("comm_", "communicator"),
    ("intercomm_", "communicator"),
    ("cart_", "topology"),
    ("graph_", "topology"),
    ("dist_graph_", "topology"),
    ("group_", "group"),
    ("type_", "datatype"),
    ("pack", "datatype"),
    ("unpack", "datatype"),
    ("get_elements", "datatype"),
    ("status_set_elements", "datatype"),
    ("op_", "datatype"),
    ("status_", "completion"),
    ("info_", "info"),
    ("errhandler_", "errhandler"),
    ("add_error_", "errhandler"),
    ("remove_error_", "errhandler"),
    ("attr_", "attribute"),
    ("keyval_", "attribute"),
    ("session_", "session"),
)

_CONVERSION = re.compile(r"_(c2f|f2c|c2f08|f082c|f082f|f2f08)$")
_PREFIX = re.compile(r"^P?MPIX?_")


def _stem(name: str) -> str:
    """Lower-case name without its MPI_/MPIX_/PMPI_ prefix or ``_c`` suffix."""
    stem = _PREFIX.sub("", name).lower()
    if stem.endswith("_c") and len(stem) > 2:
        stem = stem[:-2]
    return stem


def categorize(name: str) -> str:
    """Return the category of an MPI function from its C name.

    The name is reduced to a stem: the ``MPI_``, ``MPIX_`` or ``PMPI_``
    prefix is dropped (so ``MPIX_Foo`` is categorized like ``MPI_Foo``), a
    large-count ``_c`` suffix is dropped (``MPI_Send_c`` is ``MPI_Send``),
    and the stem is lower-cased.  Then the first matching rule wins:

    1. ``T_*`` (the MPI tools interface): tools.
    2. Handle conversions ``*_c2f``, ``*_f2c``, ``*_c2f08``, ``*_f082c``,
       ``*_f082f``, ``*_f2f08``: environment (language-binding support).
    3. Exact names: environment (Init, Init_thread, Finalize, Initialized,
       Finalized, Abort, Get_version, Get_library_version,
       Get_processor_name, Get_hw_resource_info, Wtime, Wtick, Pcontrol,
       Query_thread, Is_thread_main, Alloc_mem, Free_mem, F_sync_reg,
       Sizeof); send (Send, Bsend, Ssend, Rsend with their I* and *_init
       forms, Psend_init); recv (Recv, Irecv, Recv_init, Mrecv, Imrecv,
       Precv_init); sendrecv (Sendrecv, Sendrecv_replace and their I* forms);
       probe (Probe, Iprobe, Mprobe, Improbe); completion (Start, Startall,
       Cancel, Parrived); collective (Barrier, Bcast, Gather(v),
       Scatter(v), Allgather(v), Alltoall(v/w), Reduce, Allreduce,
       Reduce_scatter(_block), Scan, Exscan with I* and *_init forms); rma
       (Put, Get, Accumulate, Get_accumulate, Fetch_and_op,
       Compare_and_swap, Rput, Rget, Raccumulate, Rget_accumulate); io
       (Register_datarep); communicator (Open_port, Close_port, Lookup_name,
       Publish_name, Unpublish_name); topology (Graphdims_get, Cartdim_get,
       Topo_test, Dims_create); datatype (Get_address, Get_count, Aint_add,
       Aint_diff, Reduce_local, Status_set_cancelled); errhandler
       (Error_class, Error_string).
    4. Prefixes, in order: Buffer_* environment; Wait*, Test*, Request_*,
       Grequest_*, Pready* completion; Neighbor_*, Ineighbor_* collective;
       Win_* rma; File_* io; Comm_*, Intercomm_* communicator; Cart_*,
       Graph_*, Dist_graph_* topology; Group_* group; Type_*, Pack*,
       Unpack*, Get_elements*, Status_set_elements*, Op_* datatype (derived
       datatypes and the local reduction operations); other Status_*
       completion; Info_* info; Errhandler_*, Add_error_*, Remove_error_*
       errhandler; Attr_*, Keyval_* attribute; Session_* session.
       Object functions such as Comm_set_errhandler or Win_get_attr stay
       with their object (communicator, rma).
    5. Anything else: other.
    """
    stem = _stem(name)
    if stem.startswith("t_"):
        return "tools"
    if _CONVERSION.search(stem):
        return "environment"
    for category, names in _EXACT.items():
        if stem in names:
            return category
    for prefix, category in _PREFIXES:
        if stem.startswith(prefix):
            return category
    return "other"
