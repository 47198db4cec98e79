//===- Layouts.h - register fragment and shared-memory layouts --*- C++ -*-===//
//
// Part of the TileTag project.
//
// The data layouts the lowering assigns: which thread holds which element of
// an MMA fragment, and where a tile element lives in swizzled shared memory.
// They are pure functions so that each can be checked element by element
// against the vendor tables (unittests/LayoutsTest.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef TILETAG_CONVERSION_LAYOUTS_H
#define TILETAG_CONVERSION_LAYOUTS_H

#include <cstdint>
#include <optional>
#include <string>

namespace mlir::tiletag::layout {

/// A (row, column) position in a tile.
struct Coord {
  int64_t row, col;
  bool operator==(const Coord &o) const { return row == o.row && col == o.col; }
};

/// A (thread, register) slot of a fragment held by a group of threads.
struct Slot {
  int64_t thread, reg;
  bool operator==(const Slot &o) const {
    return thread == o.thread && reg == o.reg;
  }
};

//===----------------------------------------------------------------------===//
// NVIDIA Hopper wgmma (PTX ISA: "Register fragments and shared memory matrix
// layouts", matrix D of wgmma .m64nNk16)
//===----------------------------------------------------------------------===//

/// Registers per thread of an m64nN f32 accumulator: 64 * N / 128.
int64_t wgmmaAccumulatorRegisters(int64_t n);

/// The accumulator element that thread `thread` (0..127 of the warpgroup)
/// holds in register `reg` (0..N/2-1): warp w = thread / 32 owns rows
/// 16w..16w+15; in each 8-column block j = reg / 4, lane l holds rows
/// l / 4 and l / 4 + 8 and columns 2 (l mod 4) and 2 (l mod 4) + 1.
Coord wgmmaAccumulatorElement(int64_t thread, int64_t reg);

/// The inverse: who holds element (row, col) of an m64nN accumulator.
Slot wgmmaAccumulatorSlot(Coord element);

/// Each thread holds two rows of an m64nN accumulator (its row slots): slot
/// 0 is row 16w + l / 4 of thread 32w + l, slot 1 the row 8 below it.
constexpr int64_t kWgmmaRowSlots = 2;
int64_t wgmmaRowOfSlot(int64_t thread, int64_t slot);
/// The row slot of register `reg`: in every thread, the row of register
/// `reg` is the row of this slot. A row vector held slot by slot is thus
/// read beside each register without leaving the thread.
int64_t wgmmaRowSlotOfRegister(int64_t reg);

/// The element (row, k) of a 16-bit A operand taken from registers by an
/// m64nNk16 wgmma that thread `thread` holds in half `half` (0, 1) of its
/// 32-bit register `reg` (0..3): warp w owns rows 16w..16w+15; lane l holds
/// rows l / 4 (registers 0, 2) and l / 4 + 8 (1, 3), columns 2 (l mod 4) +
/// half (registers 0, 1) and 8 more (2, 3).
Coord wgmmaRegisterAElement(int64_t thread, int64_t reg, int64_t half);

/// The register of an m64nN f32 accumulator that holds, in every thread,
/// the element that half `half` of register `reg` of the A fragment of
/// 16-deep step `step` needs, where A's columns are the accumulator's (an
/// element-wise function of it, attention's P): 8 step + 2 reg + half. So
/// A is packed from the thread's own accumulator registers, in order.
int64_t wgmmaAccumulatorRegisterOfA(int64_t step, int64_t reg, int64_t half);

//===----------------------------------------------------------------------===//
// TMA and wgmma shared-memory swizzle (CU_TENSOR_MAP_SWIZZLE_128B)
//===----------------------------------------------------------------------===//

/// The byte offset at which the byte at logical offset `offset` of a tile
/// with 128-byte rows is stored under the 128-byte swizzle: the 16-byte
/// chunk index within each 128-byte row is XORed with the row index modulo
/// 8, so that 8 consecutive rows of one column chunk fall in 8 different
/// bank groups.
int64_t swizzle128B(int64_t offset);

/// Whether a run of adjacent elements of `runBytes` (a lane's adjacent
/// accumulator columns) in rows of `rowBytes` is one vector access: at most
/// 16 bytes (the swizzles move 16-byte units, so it stays contiguous), a
/// power of 2, and a divisor of the row, so that a run starting at a
/// multiple of its length is aligned in every row.
bool isVectorRun(int64_t runBytes, int64_t rowBytes);

/// Why an M x K by K x N product of `elementBytes`-byte inputs (2: bf16,
/// f16; 1: fp8) is not one wgmma group from 128-byte swizzled slots (A
/// K-major in panels; B N-major in panels, or K-major where `bKMajor`: the
/// layouts TMA gives TileTag's rings); empty when it is. fp8 wgmma takes B
/// K-major only.
std::string wgmmaShapeProblem(int64_t m, int64_t k, int64_t n,
                              int64_t elementBytes, bool bKMajor);

//===----------------------------------------------------------------------===//
// AMD CDNA3 MFMA (CDNA3 ISA: v_mfma_f32_16x16x16_f16 / _bf16, and for fp8
// v_mfma_f32_16x16x32_fp8_fp8 / _bf8_bf8)
//===----------------------------------------------------------------------===//

/// Why an M x K by K x N product of `elementBytes`-byte inputs (2: bf16,
/// f16; 1: fp8) is made of neither 16x16 blocks (M, N multiples of 16, K
/// of 16 / 32 for fp8) nor 32x32 blocks (M, N multiples of 32, K of 8 / 16
/// for fp8); empty when it is made of one of them.
std::string mfmaShapeProblem(int64_t m, int64_t k, int64_t n,
                             int64_t elementBytes);

/// The element of the 16x16 f32 result that lane `lane` (0..63) holds in
/// its `reg`-th (0..3) result register: column lane mod 16, row
/// 4 (lane / 16) + reg (the same for every input type).
Coord mfma16x16Element(int64_t lane, int64_t reg);

/// The inverse: who holds element (row, col) of the 16x16 result.
Slot mfma16x16Slot(Coord element);

/// The A-operand element (row m, column k of the 16 x 4p A tile) that lane
/// `lane` (0..63) holds in element `i` (0..p-1) of its 8-byte source
/// register pair, p = `perLane` elements (4 of 16 bits, 8 of fp8): row
/// lane mod 16, column p (lane / 16) + i.
Coord mfma16x16OperandA(int64_t lane, int64_t i, int64_t perLane = 4);

/// The B-operand element (row k, column n of the 4p x 16 B tile) that lane
/// `lane` holds in element `i`: row p (lane / 16) + i, column lane mod 16.
Coord mfma16x16OperandB(int64_t lane, int64_t i, int64_t perLane = 4);

//===----------------------------------------------------------------------===//
// AMD CDNA MFMA 32x32 (CDNA3 ISA: v_mfma_f32_32x32x8_f16 / _bf16, fp8:
// v_mfma_f32_32x32x16_fp8_fp8 / _bf8_bf8; CDNA2: ..._bf16_1k)
//===----------------------------------------------------------------------===//

/// The element of the 32x32 f32 result that lane `lane` (0..63) holds in
/// its `reg`-th (0..15) result register: column lane mod 32, row
/// 8 (reg / 4) + 4 (lane / 32) + reg mod 4.
Coord mfma32x32Element(int64_t lane, int64_t reg);

/// The inverse: who holds element (row, col) of the 32x32 result.
Slot mfma32x32Slot(Coord element);

/// The A-operand element (row m, column k of the 32 x 2p A tile) that lane
/// `lane` holds in element `i` (0..p-1), p = `perLane` (4 of 16 bits, 8 of
/// fp8): row lane mod 32, column p (lane / 32) + i.
Coord mfma32x32OperandA(int64_t lane, int64_t i, int64_t perLane = 4);

/// The B-operand element (row k, column n of the 2p x 32 B tile) that lane
/// `lane` holds in element `i`: row p (lane / 32) + i, column lane mod 32.
Coord mfma32x32OperandB(int64_t lane, int64_t i, int64_t perLane = 4);

/// The LDS bank of byte `offset` (CDNA3 ISA, "Local Data Share": 32 banks,
/// each 4 bytes wide, consecutive dwords in consecutive banks).
int64_t ldsBank(int64_t offset);

} // namespace mlir::tiletag::layout

#endif // TILETAG_CONVERSION_LAYOUTS_H
