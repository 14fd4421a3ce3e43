// The public face of the CUDA backend: its switches and a factory that says why it cannot run.
// Plain C++: no CUDA header or type may appear here (the app and tests include it).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "sim/backend.h"

namespace hooke {

// How the CG iterations of an implicit step run on the device (items 10 and 11).
//   kLaunches: a few kernels per iteration from the host (optionally replayed as a CUDA graph)
//   kOneBlock: the whole solve in one launch of one thread block, directions in shared memory
//   kGrid:     the whole solve in one cooperative launch over every SM, grid-wide barriers
//   kAuto:     kOneBlock for small systems, kGrid for medium ones, kLaunches for large ones (and
//              where a device cannot launch cooperatively), by the thresholds below
enum class CgPath { kAuto, kLaunches, kOneBlock, kGrid };

// CudaOptions::fill_on_chip's bits (item 43), and the fewest rows a block keeps with it
// automatically
inline constexpr int kFillInverses = 1;
inline constexpr int kFillRows = 2;
inline constexpr int kFillRowsMinRows = 128;
// Item 46 (entry_columns): only where a thread of item 27's kernel walks at least this many
// entries past its two held ones.
inline constexpr int kColumnsMinWalked = 3;

// Switches of the GPU path. Each one changes speed only, never the result beyond rounding; the
// backend keeps the values it was created with for its lifetime.
struct CudaOptions {
  int device = 0;             // CUDA device ordinal
  int check_interval = 8;     // K: CG iterations launched between two host reads (kLaunches)
  bool float4_layout = true;  // particle vectors as float4 (16-byte loads) instead of packed float3
  bool prefer_l1 = true;      // L1-preferred shared-memory carve-out on every kernel
  // L2 persisting access window over per-step constant data during CG. Off by default: on the
  // H200 it gained nothing up to 65k particles and cost 30 % at 1M (bench/results, ablation 6)
  bool l2_persist = false;
  bool cg_graph = true;  // kLaunches: replay each block of K iterations as one CUDA graph
  // α and β by the last block of each reduction, 3 launches per iteration (kLaunches); the
  // direction update folded into A p, 2 barriers per iteration (kOneBlock, kGrid). Off: 5 each.
  bool fused_finish = true;
  bool timing = true;  // per-phase times (StepStats *_ms) from CUDA events

  CgPath cg_path = CgPath::kAuto;
  // kAuto takes kOneBlock up to this many particles (and while the directions fit in one block's
  // shared memory): on the H200, against the grid with gather lanes, one barrier per iteration and
  // held entries, one block won at 144 cloth particles (2.6 against 3.7 µs per iteration) and 54
  // volume particles, tied at 128 (volume) and 256 (cloth), and lost from 250 volume particles
  // (5.1 against 4.1) and 576 cloth particles (bench/results/gpu-h200-2026-11-30-item17.json,
  // "crossover")
  int one_block_max_particles = 200;
  // kAuto takes kGrid up to this many particles and kLaunches above; 0: kGrid at every size. On
  // the H200 the grid won at 65536 particles and lost from 262144 (the same file, "paths").
  // Beyond one round of rows (512 threads per multiprocessor: 67,584 particles on the H200) kAuto
  // takes kGrid only where the rows average fewer than 16 entries (cloth, not volumes: there the
  // launched path took 17–24 % less time at 93k and 128k particles,
  // bench/results/gpu-h200-2026-12-03-rounds.json)
  int grid_max_particles = 131072;
  // kOneBlock, kGrid: CG iterations per launch between two host reads; 0: the whole solve in
  // one launch, read once per step (item 1 taken to its end)
  int whole_cg_interval = 0;
  // Threads per particle in q = A p (item 13): its springs split over this many lanes of a warp
  // so their dependent loads overlap; a power of two from 1 to 32, or 0: chosen at load from the
  // size against the path's resident threads and the springs per particle (measured on the H200:
  // bench/results, "lanes"; CudaBackend::lanesFor)
  int gather_lanes = 0;
  // Item 16, kLaunches: each lane of q = A p issues the loads of 3 or 4 of its entries (adjacency,
  // block, neighbour) before using any, instead of walking them one round trip at a time. 1: one
  // at a time; 3 or 4: batches of that many; 0: chosen at load (CudaBackend::batchedApply,
  // applyBatch): batched for systems beyond 512 particles per multiprocessor, where the lanes rule
  // then gives each lane about 6 entries, in batches of 3 where a lane has at most 6 (two full
  // batches), else 4; 3 for rows on one lane through item 37's offset blocks (item 40's walk,
  // where 4 measured 1–2 % slower on the cloths and 4–8 % on the volumes, H200, 262k–1M). The
  // whole-CG paths always walk one at a time (batching measured 5–15 % slower there:
  // bench/results/gpu-h200-2026-11-30-batched-whole-cg.json against -b6799ad.json).
  int gather_batch = 0;
  // kLaunches: threads per block of q = A p, a multiple of 32 from 32 to 256; 0: 256 on a flat
  // lattice's tiles (a cloth's), elsewhere the occupancy query's block for its variants (item 4;
  // on the H200 256 for item 40's walk in batches of 3, 47–48 registers; 224 before it, 53). On the
  // H200 256 was up to 3.7 % faster per iteration on the 262k–1M cloths (cloth 724 the same) but
  // 5 % slower on the 265k volume before item 40 (cuda_backend.cpp, kFlatApplyBlock). Item 23's
  // automatic tile follows the block (the largest power of two of rows within it, on a volume at
  // most 128), and item 38 needs it at most the joined kernel's.
  int apply_block = 0;
  // kGrid (with fused_finish) up to this many particles: Chronopoulos–Gear CG, all of an
  // iteration's sums in one reduction, so one grid barrier per iteration instead of two (item 14);
  // the same iterates as PCG in exact arithmetic, recurrences that round differently. Unstaged,
  // each gatherer reads three vectors and a 3×3 block per neighbour instead of two vectors, and it
  // lost at 65536 particles; with item 18's halos (and where they fit, item 27) it won at every
  // size the grid runs on the H200: 5.4 against 11.1 µs per iteration at cloth 192, 7.0 against
  // 10.5 at cloth 256, 7.6 against 16.7 at the 35k volume, 14.7 against 16.8 at the 65k volume, and
  // beyond one round of rows on one lane 15.1 against 17.5 at cloth 300 and 16.4 against 22.7 at
  // cloth 362 (bench/results/gpu-h200-2026-12-03-rounds.json). Beyond one round of rows its grid
  // gathers on one lane (CudaOptions::gather_lanes 0): 1.1–2.1× faster there than the lanes rule's
  // 4 or 8 (at cloth 300, 2 lanes were 8 % faster than 1; at cloth 362 and the volumes 1 was
  // 1.3–1.5× faster than 2). 0: never.
  int single_reduction_max_particles = 131072;
  // kGrid: threads per block of the cooperative grid, a multiple of 32 from 32 to 512; 0: chosen
  // at load, item 28's balanced block where it applies, else 512 once the grid's threads would
  // fill more than 1.25 blocks of 256 per multiprocessor (the H200's crossover;
  // CudaBackend::choosePath), else 256. Larger blocks mean fewer barrier participants and block
  // partial sums.
  int grid_block = 0;
  // Item 28, kGrid with item 14's kernel and grid_block 0: blocks of ceil(particles /
  // multiprocessors) rows (rounded up to whole warps) where that is at most 512 threads, so each
  // multiprocessor gathers at most one block, instead of 256 or 512 threads, which leave some
  // multiprocessors two blocks and others none (item 27's kernel holds 512 threads per
  // multiprocessor). The rows a block sums differ, so the bits do. On the H200 7–13 % faster per
  // iteration at cloth 1024, 2304 and 9216 particles, volume 1024, 4394 and 11664, within ±2 %
  // elsewhere up to 16k (bench/results/gpu-h200-2026-12-02-balanced.json, "grid_lanes").
  bool balance_grid = true;
  // Item 15: the device arrays in a locality order (sim/locality_order.h): particles along a
  // Morton curve of their positions at load, springs by their ends, so q = A p over a block of
  // consecutive rows finds most neighbours and springs in what the block already loaded. The host
  // sees model order: state, external forces and visual positions are translated at the copy.
  bool locality_order = true;
  // Item 17, kGrid: each lane of the cooperative grid loads the adjacency entries of its first
  // row (the other end and the packed spring block of up to 4 of them, 2 in item 14's kernel)
  // once per launch and keeps them in registers, so every iteration issues those neighbours'
  // loads at once instead of walking the row one adjacency round trip at a time. The same sums, bit
  // for bit. Off: the walk. Only the default kernels are compiled without it (off with
  // ablate_static is refused).
  bool hold_entries = true;
  // Item 18, kGrid with item 14's kernel: before each gather, each block evaluates the
  // preconditioned residual u' once for every particle of its halo (its own rows and their
  // neighbours, found at load) into shared memory, and its lanes read their neighbours' u' from
  // there instead of each recomputing it from three vectors and a 3×3 block in global memory.
  // The same expressions, so the same bits. 0: staged wherever item 27 runs (stage_rows, the
  // entries staged too: one round of rows), and otherwise when the rows average at least 16
  // entries or a lane's share of a row passes the 2 entries it holds in registers (item 17).
  // Before item 27 staging cost 2–4 % per iteration at cloth of 1024 and 4096 particles (16 and 8
  // lanes, every entry held); with it those are 4–8 % faster staged than not, and volume 26 and
  // 41 22 % and 30 %, cloth 128 10 % (bench/results/gpu-h200-2026-12-02-rows.json, "paths"). 1:
  // staged wherever it can be; -1: never. Staging needs hold_entries, no ablate_static and halos of
  // at most 4096 particles that every block of the grid can hold at once; otherwise the unstaged
  // kernel.
  int stage_halo = 0;
  // Item 18, staged grids of one round of rows: each block also copies its rows' adjacency
  // entries (spring blocks and halo slots) to shared memory once per launch when they fit
  // (at most 8192), so the gather then touches global memory only for its own row
  bool stage_entries = true;
  // Item 31, staged entries: each block copies the packed block of each spring its rows name once
  // (16 bytes), and a 4-byte word per entry (the spring's place among them, the other end's
  // slot), instead of a 16-byte block and a slot per entry: about 12 instead of 20 bytes per entry
  // on a lattice, where a spring with both ends in the block's rows is named twice. So the
  // entries fit a block where the 20-byte form does not (at one lane, the rows of a 35k–65k volume:
  // 9–13k entries a block), and item 27 runs there. The same bits; one more dependent shared-memory
  // read per entry. 0: wherever it fits, else the 20-byte form; 1: wherever it fits, else neither;
  // -1: never. (0 took it only where the 20-byte form did not fit until each form's walk had a
  // kernel of its own: then it measured 0–1 % either way up to 16k particles and 7 % faster at
  // cloth 256.)
  int stage_springs = 0;
  // Item 27, staged grids that stage their entries too (one round of rows): each block's fill of
  // the halo also keeps its own rows' s', r' and P⁻¹ r in shared memory, the rows' mask,
  // diagonal, p and Δv stay in registers for the launch (p and Δv written back at its end), and
  // the fill's first round loads its inputs right after the grid barrier, while the partial sums
  // are read. An iteration then waits for one memory round trip after the barrier instead of
  // three. The same bits. On the H200 6–10 % faster per iteration on every staged grid of 1k–16k
  // particles (bench/results/gpu-h200-2026-12-02-rows.json, "paths").
  bool stage_rows = true;
  // Item 29, kGrid: after each grid barrier, warp k of every block forms the grid-wide sum k from
  // the blocks' partials, its lanes' loads issued at once and before the staged fill's (item 27),
  // instead of warp 0 forming all of them while the other warps wait. The same bits.
  bool split_sums = true;
  // Item 30, item 27's kernel: each row walks the entries it does not hold (item 17) two at a time
  // from shared memory, both entries' and both neighbours' reads issued before either product,
  // instead of one at a time through a branch between shared and global memory. The same bits.
  bool paired_walk = true;
  // Item 33, kGrid: the grid barrier as cooperative groups' (each block's arrival an atomic add
  // with release semantics, then a poll of the barrier word with acquire semantics until its top
  // bit flips), except that the block whose add completes the barrier sees that in the add's
  // result, made an acquire too, and goes on without polling: one round trip to L2 less for the
  // last block, which the whole grid waits for. The same bits.
  bool last_arrival = true;
  // Item 41, item 26's joined kernel where it forms α (item 38): after its update, each block's
  // thread 0 takes an arrival ticket (an atomic add with acquire and release semantics, in place
  // of item 33's barrier); the block that arrives last alone sums the blocks' partials of r·r and
  // r·z, finishes the iteration as finishBeta does and releases the others with one 64-bit word
  // holding β and the stop, which they poll. Off: every block reads every block's partials after
  // a grid barrier and forms β itself (528 blocks read the same 8 KB at once at 262k particles).
  // The same bits.
  bool beta_once = true;
  // Item 35, item 27's kernel on 4 or more gather lanes: every lane of a row finishes it (the same
  // values; the first lane alone stores them) and lane k forms the row's sum k (r'·u', w'·u',
  // r'·r'), so the block's sums shuffle one double per level over the lanes of each rank instead
  // of three over the whole warp (2 levels fewer on 4 lanes, 4 on 16), and each row converts 6
  // floats to double instead of 9. The same bits.
  bool lane_sums = true;
  // Item 43, item 27's kernel: less of the halo's fill from global memory after each grid barrier.
  // Bit kFillInverses: each block copies every halo slot's P⁻¹ block to shared memory once per
  // launch (24 bytes per slot); bit kFillRows: it keeps its own rows' r', w' and s' there from
  // the finish to the next fill (36 bytes per row of the block; they are still stored for the
  // other blocks and the next launch). Where the bits asked for do not fit beside item 27's
  // shared memory, P⁻¹ alone, else the rows alone, else neither. -1 (automatic): P⁻¹, and the
  // rows where a block has at least kFillRowsMinRows of them; 0: every slot's r, w, s and P⁻¹ (72
  // bytes in float4) loaded after every barrier. On the H200 P⁻¹ took 1.6–5 % off an iteration
  // from 4k to 65k particles and the rows 2–4 % more on blocks of 128 and 512 rows (volume 41,
  // cloth 256; 0 at cloth 128), but cost 0.5–3 % on blocks of 8–32 rows
  // (bench/results/gpu-h200-2026-12-04-fill.json).
  // The same bits.
  int fill_on_chip = -1;
  // Item 44, item 14's kernel: the scalars after each grid-wide sum on a shorter chain. The stop
  // compares r'·r' with target², and β' = (r'·u') / γ and η = w'·u' − β' (r'·u') / α multiply by
  // 1/γ and 1/α, formed after the iteration before while the rows ran. With item 49 (part of this
  // switch) α' = (r'·u') / η and those reciprocals come from an approximation and one correction
  // instead of divisions, and |r| is rooted once per launch: no division and no square root after
  // the sums, where off takes the root and three divisions. Rounds differently from the divisions
  // in the last bits of a double (β' and α' are then rounded to float).
  bool scalars_ahead = true;
  // Item 45, item 27's kernel with its rows on one lane (blocks of as many rows as threads: cloth
  // 256 and volume 64 on the H200): the thread that gathers row t of its block is the thread whose
  // first round of the fill forms slot t, so the row's s', r' and u go from the fill to the finish
  // in registers, and its r', w' and s' from the finish to the next fill (they are still stored
  // for the other blocks and the next launch). The block then needs no own rows' area in shared
  // memory (36 bytes per row; item 43's kept rows are these registers), which leaves room for item
  // 43's P⁻¹ blocks beside item 31's springs at volume 64, and the loads issued right after each
  // grid barrier, beside the partials', are the first round of the other blocks' slots instead of
  // the block's own (cloth 256 used to load them after the scalars, in a second round).
  // The same bits.
  bool rows_in_registers = true;
  // Item 46, item 27's kernel with item 31's springs and item 30's paired walk: the walk's shared
  // memory without bank conflicts. Each thread copies the words of its share of its row past its
  // two held entries to shared memory by column (its j-th at (j − 2) · block + thread), so a
  // warp's 32 threads read 32 consecutive words, where each row's own range cost 2–4 passes of the
  // banks on one lane; and the block's springs are placed by a greedy colouring (staged_halo.h,
  // colourStagedSprings) so that the 8 threads a pass of a 16-byte load serves mostly read
  // different 16-byte columns of the banks (ncu on the H200 before it, cloth 256: 10 passes a
  // warp's spring load where 4 would do, 2.4 times the shared memory's ideal traffic in all).
  // Only where a thread walks at least kColumnsMinWalked entries (the 1-lane grids, volume 41 on
  // 4 lanes; not cloth 128 on 4 or volume 26 on 8, where it measured 1–2.5 % slower). The same
  // bits.
  bool entry_columns = true;
  // Item 47, item 14's grid with its rows on one lane in one round (item 27's or not):
  // each row's adjacency entries sorted at load by the direction of their other end from the
  // particle (the offset in units of the shortest spring, by z, y, x), instead of by spring. A
  // warp's 32 rows then mostly read the same direction at the same entry, so their staged
  // neighbours' u' lie at slots a few apart and mostly in different banks (a bank model of item
  // 46's walk: 2.1 → 1.3 passes a load at cloth 256, 2.6 → 1.8 at volume 64). Every gather of
  // the backend (forces too) sums its rows in this order: the same system, sums in another order,
  // so not the same bits as without it.
  bool rows_by_direction = true;
  // Item 51, item 14's staged grid in one round of rows: each block's outside halo slots (the
  // other blocks' particles its rows name) placed by a greedy colouring of the banks
  // (staged_halo.h, colourStagedHalo) instead of ascending, so that the u' loads a warp issues
  // together for its j-th entries mostly fall in different banks (the bank model: 1.32 → 1.17
  // passes a load at cloth 256, 1.75 → 1.43 at volume 64; the walk's shared-memory passes −6 %
  // and −10 %; on several lanes volume 41 2.10 → 1.43, walk −20 %; bench/bank_model), the two
  // particles of a 32-byte sector kept in one warp of the fill's loads (its sectors as ascending at
  // volume 64, +7 % at cloth 256). A permutation of the slots: the same bits. Off until measured
  // on the H200.
  bool halo_colours = false;
  // Item 20, kLaunches with batched loads (item 16): q = A p reads 4-byte adjacency entries (the
  // other end and the spring's place among its lower end's springs, cuda/compact_entries.h)
  // instead of 8-byte (spring, other) pairs: 4 bytes less per entry, one more dependent load (the
  // lower end's first spring) per entry. The same sums, bit for bit. Needs the locality order's
  // spring order (item 15), at most 32 springs towards higher slots per particle and fewer than
  // 2^27 particles; otherwise the pairs.
  bool compact_entries = true;
  // Item 22, kLaunches with batched loads (item 16): where the model's springs join particles at
  // at most 16 distinct index offsets (a cloth or volume lattice: i + 1, i + W, ...), the device
  // keeps the model's particle order, springs by their ends, and q = A p finds a row's springs
  // from one mask per particle (cuda/stencil_rows.h) instead of adjacency entries: no entry read,
  // and every load's address known at once but the lower end's first spring for springs from
  // lower particles. The same entries in the same order as the pairs in that order, so the same
  // sums. Takes precedence over items 15 and 20; elsewhere they apply as before.
  bool stencil_rows = true;
  // Item 23, with item 22's stencil rows: where their offsets imply a lattice (W from the shear
  // offsets W − 1, W, W + 1, a volume's plane P = W·H likewise, cuda/lattice_tiles.h), q = A p's
  // blocks gather boxes of the lattice instead of runs of consecutive rows, so the neighbours at W
  // and P away, and the springs to them, are mostly read again from the block's own L1 rather
  // than from L2. Each row's sum is the same bits; p·A p's block partials group the rows
  // differently. lattice_tile: the box (x, y, z: powers of two from 1 to 1024, a product of at
  // most 65536; other values are refused); 0, 0, 0: one block's rows per round, a warp's along x
  // (cuda::automaticTile).
  bool lattice_tiles = true;
  int lattice_tile[3] = {0, 0, 0};
  // Item 24, with item 22's stencil rows and without item 37's offset blocks: each lane loads the
  // 8-byte word (first own spring, row mask) of the row it gathers next while it gathers the
  // current one, so a row starts with its spring blocks' addresses known instead of one memory
  // round trip away. The same sums, bit for bit.
  bool stencil_ahead = true;
  // Item 37, with item 22's stencil rows: the spring blocks written a second time at load's
  // places d · particles + a (the spring from particle a at the stencil's d-th offset, one float4
  // per offset and particle, absent springs' places unused), so q = A p reads a row's springs at
  // addresses computed from the row itself: no lower end's word is loaded first, and a warp's rows
  // along x read each offset's blocks as one contiguous run. 16 bytes per offset and particle more
  // device memory (the places of absent springs included), one more 16-byte store per spring and
  // step. The same sums, bit for bit. Item 40: a row on one lane walks all 2D positions of the
  // stencil without loading its word: absent springs' places and one place past the blocks hold
  // zero blocks, which add nothing (37 % fewer instructions a launch than the walk over the
  // word's set bits: on the H200 2.5–6 % faster per iteration at 262k–1M, 1.5 % at the 265k
  // volume).
  bool offset_blocks = true;
  // Item 39, with item 37's offset blocks: during CG an L2 access-policy window over the offset
  // blocks with hit ratio 0, so every access to them is streaming (evict-first): they give way in
  // L2 to the vectors, which the next kernel reads again. 0: where the rest of what an iteration
  // touches per particle (the four CG vectors, the diagonal, P⁻¹, the mask and the row's word:
  // 104 bytes in float4) takes at most 3/4 of L2; 1: wherever offset blocks run; -1: never. On
  // the H200 (60 MiB L2; fixed 100 iterations, µs per iteration, cached → streamed): cloth 512
  // 29.8 → 26.6 (the rest: 0.43 of L2), volume 102 46.6 → 43.4 (0.44), cloth 600 42.5 → 36.4
  // (0.60), cloth 724 53.2 → 52.4 (0.87), but volume 128 76.5 → 81.5 (0.87)
  // (bench/results/gpu-h200-2026-12-03-streamed-blocks-sizes.json); at 1M cloth 7 % slower,
  // the 1M volume within 1 % with 60 % of its blocks in the window (docs/PERFORMANCE.md, item 39).
  // A persisting share of the blocks measured slower the larger it was. Item 6's window, when on,
  // takes its place (a stream has one window). The same bits either way.
  int stream_offset_blocks = 0;
  // Item 25, kLaunches: Δv += α p moves from the update kernel to the direction kernel, which
  // reads p anyway (then p = z + β p), so the update reads neither p nor Δv: 16 bytes less per
  // particle and iteration. The direction kernel of the iteration that ends CG still runs for
  // its Δv (CgScalars::dv_pending). The same Δv, bit for bit.
  bool dv_in_direction = true;
  // Item 26, kLaunches with fused_finish, where the device launches cooperatively: the update and
  // the direction kernels become one cooperative launch of the update's own grid and block, with
  // a grid barrier where the direction kernel's launch was. Each thread keeps the z and p of its
  // particles (the update's grid-stride rounds) in shared memory across the barrier, then every
  // block forms β from all blocks' partial sums as the update's last block did, and p = z + β p:
  // z never goes to global memory (32 bytes less per particle and iteration than item 25's two
  // kernels) and an iteration has two launches. Used where every block of that grid stays
  // resident holding its particles' z and p (on the H200: up to 4 particles per thread, 1.08M
  // particles), else the two kernels. The same bits as the two kernels.
  bool direction_in_update = true;
  // Item 38, with item 26's joined kernel: q = A p runs unfused (no last block forming α at its
  // end: its fence, ticket and the sum over every block's partial on one multiprocessor while the
  // others wait), and every block of the joined kernel forms α itself from q = A p's block
  // partials, exactly as that last block would have. Where the joined block is at least
  // q = A p's. The same bits.
  bool alpha_in_update = true;
  // Item 21, kLaunches on sm_90 and later, up to this many particles: programmatic dependent
  // launch. Each CG iteration kernel may be scheduled while the one before it still runs, and
  // waits for its results on the device (griddepcontrol), so the next grid's launch and block
  // start overlap the last one's tail. The same results, bit for bit. On the H200 it was 9–12 %
  // faster per iteration up to 16k particles and 6 % at 65k cloth, but 8–11 % slower at the 65k
  // volume and 13–16 % slower at 1M particles (bench/results/gpu-h200-2026-12-01-dependent.json
  // and -final.json, "paths"); so by default it stays below the launched path's sizes on the H200
  // (its grid path runs up to 131072) and serves devices without cooperative launches and forced
  // launches. 0 (or less): never. Ignored on devices before sm_90.
  int dependent_launch_max_particles = 32768;
  bool block_jacobi = true;  // 3×3 block-Jacobi preconditioner; off: point Jacobi (item 12)
  bool warm_start = false;   // start CG from the previous step's Δv instead of 0 (item 12)
  // Benchmark ablation only: compile the whole-CG kernel (kOneBlock, kGrid; float4 layout) with
  // one compile-time optimisation taken out: 4 (__launch_bounds__ and occupancy-chosen block
  // size), 5 (__ldg on read-only data), 7 (branchless pinned masks), 8 (warp-shuffle
  // reductions). 0: none. Compiled for both layouts.
  int ablate_static = 0;

  // Test hook for reliability tests, not a setting: when N > 0, the N-th step() after each load()
  // fails with a real CUDA error (a kernel launch with an invalid configuration, refused before
  // anything runs), returned as a Status naming it; the state stays as it was, later steps run
  // normally and the backend stays usable and destructible. 0: off. When 0, createCudaBackend
  // takes N from the environment variable HOOKE_CUDA_FAULT_AT_STEP (so the app and the CLI can be
  // tested the same way); a value there that is not a whole number >= 0 makes the factory refuse.
  int fault_at_step = 0;
};

// What the factory found about a device, for logs, the UI and benchmark records.
struct CudaDeviceInfo {
  std::string name;
  int compute_major = 0, compute_minor = 0;
  int multiprocessors = 0;
  size_t l2_bytes = 0;
  size_t global_bytes = 0;
  int driver_version = 0;   // e.g. 13000 for CUDA 13.0
  int runtime_version = 0;  // the CUDA runtime this library was built with
};

// Describes the device; false (with a one-line reason) when it cannot be used.
bool queryCudaDevice(int device, CudaDeviceInfo* out, std::string* why_not);

// Where a CUDA backend keeps the positions writeVisual interpolates, for writers that stay on the
// device (the CUDA–GL interop writer). Device pointers, valid until the backend's next step(),
// load() or destruction; the two swap roles at every step (x and v ping-pong), so ask each frame.
struct CudaVisualSource {
  const void* previous = nullptr;  // the state before the last step: particles × (float4 or float3)
  const void* current = nullptr;   // the state after it
  bool float4_layout = true;       // CudaOptions::float4_layout: 16-byte vectors, else packed 12
  // (particles) where each model particle lives in previous/current (CudaOptions::locality_order),
  // or nullptr: particle i at i
  const uint32_t* slots = nullptr;
  uint32_t particles = 0;
  int device = 0;          // the CUDA device ordinal
  void* stream = nullptr;  // the cudaStream_t every step runs on; work queued there follows them
};

// The device positions of `backend`; false when it is not a CUDA backend or holds no model.
bool cudaVisualSource(const Backend& backend, CudaVisualSource* out);

// The CG path a loaded CUDA backend runs (kAuto resolved); false when it is not a CUDA backend or
// holds no model.
bool cudaCgPath(const Backend& backend, CgPath* out);

// Threads per particle of the CG path's q = A p a loaded CUDA backend runs (item 13); 0 when it
// is not a CUDA backend or holds no model.
int cudaGatherLanes(const Backend& backend);

// Whether a loaded CUDA backend's CG runs item 14 (the grid path's one-barrier Chronopoulos–Gear
// CG); false when it is not a CUDA backend, holds no model or runs standard PCG.
bool cudaSingleReduction(const Backend& backend);

// Whether a loaded CUDA backend's grid solve stages halos in shared memory (item 18); false when
// it is not a CUDA backend, holds no model or does not. *entries (if given): whether its blocks
// stage their rows' entries too; *rows (if given): whether item 27 runs.
bool cudaStagedHalo(const Backend& backend, bool* entries = nullptr, bool* rows = nullptr);

// Whether a loaded CUDA backend's staged grid holds each block's springs once in shared memory
// (item 31) rather than a block and a slot per entry; false when it does not stage entries.
bool cudaStagedSprings(const Backend& backend);

// Whether a loaded CUDA backend's item 14 kernel forms its scalars on item 44's shorter chain (its
// solves with a negative tolerance take the square root's comparison regardless).
bool cudaScalarsAhead(const Backend& backend);

// What a loaded CUDA backend's item 27 fill holds in shared memory (item 43): kFillInverses and
// kFillRows as they fitted; 0 when item 27 does not run.
int cudaFillOnChip(const Backend& backend);

// Whether a loaded CUDA backend's item 27 rows keep their values in registers (item 45: rows on
// one lane); false when item 27 does not run.
bool cudaRowsInRegisters(const Backend& backend);

// Whether a loaded CUDA backend's item 27 rows walk item 31's words by column (item 46); false
// when item 27 does not run.
bool cudaEntryColumns(const Backend& backend);

// Whether a loaded CUDA backend sorted its CSR rows by direction (item 47).
bool cudaRowsByDirection(const Backend& backend);

// Whether a loaded CUDA backend placed its staged halos' outside slots by bank (item 51).
bool cudaHaloColours(const Backend& backend);

// Entries whose loads each lane of the launched q = A p issues together (item 16: 1, 3 or 4) in a
// loaded CUDA backend on the launched path; 0 when it is not a CUDA backend, holds no model or is
// on another path.
int cudaGatherBatch(const Backend& backend);

// Whether a loaded CUDA backend's launched q = A p visits its stencil rows in item 23's lattice
// tiles; tile (if given) gets the tile's extents (x, y, z), zeros when not.
bool cudaLatticeTiles(const Backend& backend, int tile[3] = nullptr);

// Whether a loaded CUDA backend's launched q = A p loads its stencil rows' words a round ahead
// (item 24).
bool cudaStencilAhead(const Backend& backend);

// Whether a loaded CUDA backend's launched q = A p reads item 37's offset blocks.
bool cudaOffsetBlocks(const Backend& backend);

// Whether a loaded CUDA backend streams item 37's offset blocks through L2 during CG (item 39).
bool cudaStreamedBlocks(const Backend& backend);

// The bytes the L2 access-policy window of a loaded CUDA backend's stream covers now (items 6 and
// 39 set it for CG only, so 0 between steps); 0 when it is not a CUDA backend.
size_t cudaStreamL2WindowBytes(const Backend& backend);

// Threads per block of a loaded CUDA backend's launched q = A p (CudaOptions::apply_block
// resolved); 0 when it is not a CUDA backend, holds no model or is on another path.
int cudaApplyBlock(const Backend& backend);

// What the launched q = A p's kernel (the variant a loaded CUDA backend launches) uses: registers
// per thread and static shared memory per block as compiled, and the blocks of its block size a
// multiprocessor holds. Both decide its residency (PERFORMANCE.md, "Item 40 again"); the
// benchmark records them. false (and zeros) when it is not a CUDA backend, holds no model, is on
// another path or the query failed.
struct CudaApplyKernel {
  int registers = 0;
  int static_shared_bytes = 0;
  int blocks_per_sm = 0;
};
bool cudaApplyKernel(const Backend& backend, CudaApplyKernel* out);

// Particles each thread of item 26's joined update and direction holds in a loaded CUDA backend
// on the launched path (1 or more); 0 when it is not a CUDA backend, holds no model, is on another
// path or runs the two kernels.
int cudaDirectionInUpdate(const Backend& backend);

// Whether a loaded CUDA backend's joined update forms α itself (item 38).
bool cudaAlphaInUpdate(const Backend& backend);

// Whether a loaded CUDA backend's joined update forms β once, in its last block (item 41).
bool cudaBetaOnce(const Backend& backend);

// Whether a loaded CUDA backend's launched q = A p reads item 20's 4-byte entries; false when it
// is not a CUDA backend, holds no model or does not.
bool cudaCompactEntries(const Backend& backend);

// Whether a loaded CUDA backend's launched q = A p reads item 22's offset-stencil rows; false when
// it is not a CUDA backend, holds no model or does not.
bool cudaStencilRows(const Backend& backend);

// Whether a loaded CUDA backend on the launched path launches its CG kernels dependently (item
// 21); false when it is not a CUDA backend, holds no model, is on another path or does not.
bool cudaDependentLaunch(const Backend& backend);

// Threads per block of the cooperative grid a loaded CUDA backend runs (CudaOptions::grid_block
// resolved); 0 when it is not a CUDA backend, holds no model or is not on the grid path.
int cudaGridBlock(const Backend& backend);

const char* cgPathName(CgPath path);  // "auto", "launches", "one-block", "grid"

// Device memory load() allocates for a model of this size: every buffer of the explicit, implicit,
// newton and bdf2 steps and of CG, in one arena of 256-byte aligned pieces, with block reductions
// over at most `reduction_blocks` blocks (a device-dependent count: blocks per multiprocessor ×
// multiprocessors at most). The CUDA context and graphs come on top; load() refuses a model whose
// arena plus a headroom for those does not fit in the device's free memory, with a one-line
// "needs X MiB of device memory, Y MiB free" message. A grid solve that stages halos (item 18)
// allocates their lists on top: 4 bytes per halo slot and per block, 8 per adjacency entry, and
// where it stages each block's springs once (item 31) 4 more per entry, per block and per spring
// a block names; the launched path with item 20's entries 4 bytes per particle and per adjacency
// entry, with item 22's stencil rows 8 bytes per particle, and with item 37's offset blocks (where
// they take at most a quarter of the free memory) 16 per offset and particle and 4 per spring.
size_t cudaModelBytes(size_t particles, size_t springs, bool float4_layout,
                      size_t reduction_blocks);

// A CUDA backend, or nullptr with a one-line reason in *why_not (no device, driver too old, no
// kernel image for this GPU, out of memory...). Never aborts the process.
std::unique_ptr<Backend> createCudaBackend(const CudaOptions& options, std::string* why_not);

}  // namespace hooke
