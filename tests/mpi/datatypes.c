/* datatypes.c: derived-datatype end-to-end test for mpiwatch.
 *
 * Builds contiguous, vector and struct (resized to the C struct's size)
 * types, queries their size and extent, packs and unpacks a vector, and
 * sends derived types around the ring with MPI_Sendrecv (safe with
 * np == 1). Rank 0 prints a deterministic summary; the exit status is
 * non-zero if any check failed.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VCOUNT 8   /* vector: VCOUNT blocks */
#define VBLOCK 2   /* of VBLOCK ints */
#define VSTRIDE 5  /* every VSTRIDE ints */
#define CLEN 4     /* contiguous: CLEN ints */
#define NREC 5     /* records sent in one message */
#define VSPAN ((VCOUNT - 1) * VSTRIDE + VBLOCK)

struct rec {
    int id;
    double x;
    char tag[6];
};

static int value(int r, int i)
{
    return (r + 1) * 1021 + i * 13;
}

int main(int argc, char **argv)
{
    int rank, size;
    long long errors = 0;
    MPI_Comm comm = MPI_COMM_WORLD;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const int right = (rank + 1) % size;
    const int left = (rank + size - 1) % size;

    /* Contiguous and vector types. */
    MPI_Datatype contig, vec;
    MPI_Type_contiguous(CLEN, MPI_INT, &contig);
    MPI_Type_commit(&contig);
    MPI_Type_vector(VCOUNT, VBLOCK, VSTRIDE, MPI_INT, &vec);
    MPI_Type_commit(&vec);

    /* Struct type, resized so that arrays of struct rec can be sent. */
    MPI_Datatype rec_raw, rec_type;
    {
        struct rec probe;
        int blocklens[3] = {1, 1, 6};
        MPI_Aint base, disps[3];
        MPI_Datatype types[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR};
        MPI_Get_address(&probe, &base);
        MPI_Get_address(&probe.id, &disps[0]);
        MPI_Get_address(&probe.x, &disps[1]);
        MPI_Get_address(&probe.tag, &disps[2]);
        for (int i = 0; i < 3; i++)
            disps[i] -= base;
        MPI_Type_create_struct(3, blocklens, disps, types, &rec_raw);
        MPI_Type_create_resized(rec_raw, 0, (MPI_Aint)sizeof(struct rec), &rec_type);
        MPI_Type_commit(&rec_type);
        MPI_Type_free(&rec_raw);
    }

    /* Sizes and extents. */
    int sz_contig, sz_vec, sz_rec;
    MPI_Aint lb_contig, ext_contig, lb_vec, ext_vec, lb_rec, ext_rec;
    MPI_Type_size(contig, &sz_contig);
    MPI_Type_size(vec, &sz_vec);
    MPI_Type_size(rec_type, &sz_rec);
    MPI_Type_get_extent(contig, &lb_contig, &ext_contig);
    MPI_Type_get_extent(vec, &lb_vec, &ext_vec);
    MPI_Type_get_extent(rec_type, &lb_rec, &ext_rec);
    if (sz_contig != CLEN * (int)sizeof(int) || lb_contig != 0
        || ext_contig != CLEN * (MPI_Aint)sizeof(int))
        errors++;
    if (sz_vec != VCOUNT * VBLOCK * (int)sizeof(int) || lb_vec != 0
        || ext_vec != VSPAN * (MPI_Aint)sizeof(int))
        errors++;
    if (sz_rec != (int)(sizeof(int) + sizeof(double) + 6) || lb_rec != 0
        || ext_rec != (MPI_Aint)sizeof(struct rec))
        errors++;

    /* Pack a vector, unpack it as contiguous ints. */
    int strided[VSPAN], packed_back[VCOUNT * VBLOCK];
    unsigned long long pack_sum = 0;
    {
        int pack_size, position = 0;
        for (int i = 0; i < VSPAN; i++)
            strided[i] = value(rank, i);
        MPI_Pack_size(1, vec, comm, &pack_size);
        char *packbuf = malloc((size_t)pack_size);
        if (packbuf == NULL) {
            fprintf(stderr, "datatypes: out of memory\n");
            MPI_Abort(comm, 2);
        }
        MPI_Pack(strided, 1, vec, packbuf, pack_size, &position, comm);
        if (position != sz_vec)
            errors++;
        int unpos = 0;
        MPI_Unpack(packbuf, pack_size, &unpos, packed_back, VCOUNT * VBLOCK, MPI_INT, comm);
        if (unpos != position)
            errors++;
        free(packbuf);
        for (int b = 0; b < VCOUNT; b++)
            for (int j = 0; j < VBLOCK; j++) {
                int got = packed_back[b * VBLOCK + j];
                if (got != value(rank, b * VSTRIDE + j))
                    errors++;
                pack_sum += (unsigned long long)(b * VBLOCK + j + 1) * (unsigned int)got;
            }
    }

    /* Send one vector to the right, receive it from the left as contiguous
     * blocks (same type signature: VCOUNT*VBLOCK ints). */
    int from_left[VCOUNT * VBLOCK];
    unsigned long long vec_sum = 0;
    MPI_Sendrecv(strided, 1, vec, right, 1,
                 from_left, VCOUNT * VBLOCK / CLEN, contig, left, 1, comm, MPI_STATUS_IGNORE);
    for (int b = 0; b < VCOUNT; b++)
        for (int j = 0; j < VBLOCK; j++) {
            int got = from_left[b * VBLOCK + j];
            if (got != value(left, b * VSTRIDE + j))
                errors++;
            vec_sum += (unsigned long long)(b * VBLOCK + j + 1) * (unsigned int)got;
        }

    /* Send an array of structs around the ring. */
    struct rec out[NREC], in[NREC];
    memset(out, 0, sizeof out);
    memset(in, 0, sizeof in);
    for (int i = 0; i < NREC; i++) {
        out[i].id = value(rank, i);
        out[i].x = rank + i * 0.25;
        snprintf(out[i].tag, sizeof out[i].tag, "r%u", (unsigned int)(rank * 10 + i) % 10000u);
    }
    MPI_Sendrecv(out, NREC, rec_type, right, 2, in, NREC, rec_type, left, 2, comm,
                 MPI_STATUS_IGNORE);
    unsigned long long rec_sum = 0;
    for (int i = 0; i < NREC; i++) {
        char tag[6];
        snprintf(tag, sizeof tag, "r%u", (unsigned int)(left * 10 + i) % 10000u);
        if (in[i].id != value(left, i) || in[i].x != left + i * 0.25
            || strcmp(in[i].tag, tag) != 0)
            errors++;
        rec_sum += (unsigned long long)(i + 1) * (unsigned int)in[i].id
                   + (unsigned long long)(in[i].x * 4.0) + (unsigned char)in[i].tag[1];
    }

    MPI_Type_free(&contig);
    MPI_Type_free(&vec);
    MPI_Type_free(&rec_type);

    unsigned long long local[4] = {pack_sum, vec_sum, rec_sum, (unsigned long long)errors};
    unsigned long long total[4];
    MPI_Reduce(local, total, 4, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, comm);
    int failed = 0;
    if (rank == 0) {
        printf("datatypes np=%d\n", size);
        printf("contiguous size %d extent %ld\n", sz_contig, (long)ext_contig);
        printf("vector size %d extent %ld\n", sz_vec, (long)ext_vec);
        printf("struct size %d extent %ld\n", sz_rec, (long)ext_rec);
        printf("pack_unpack checksum %llu\n", total[0]);
        printf("vector_sendrecv checksum %llu\n", total[1]);
        printf("struct_sendrecv checksum %llu\n", total[2]);
        printf("errors %llu\n", total[3]);
        fflush(stdout);
        failed = total[3] != 0;
    }
    MPI_Finalize();
    return failed;
}
