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

//===----------------------------------------------------------------------===//
// TMA and wgmma shared-memory swizzle (CU_TENSOR_MAP_SWIZZLE_128B)
//===----------------------------------------------------------------------===//

/// The byte offset at which the byte at logical offset `offset` of a tile
/// with 128-byte rows is stored under the 128-byte swizzle: the 16-byte
/// chunk index within each 128-byte row is XORed with the row index modulo
/// 8, so that 8 consecutive rows of one column chunk fall in 8 different
/// bank groups.
int64_t swizzle128B(int64_t offset);

/// Why an M x K by K x N product of `elementBytes`-byte inputs is not one
/// wgmma group from 128-byte swizzled slots (A K-major in one panel, B
/// N-major in panels: the layout TMA gives TileTag's rings); empty when it
/// is.
std::string wgmmaShapeProblem(int64_t m, int64_t k, int64_t n,
                              int64_t elementBytes);

//===----------------------------------------------------------------------===//
// AMD CDNA3 MFMA (CDNA3 ISA: v_mfma_f32_16x16x16_f16 / _bf16)
//===----------------------------------------------------------------------===//

/// Why an M x K by K x N product of `elementBytes`-byte inputs is made of
/// neither v_mfma_f32_16x16x16 blocks (every extent a multiple of 16) nor
/// v_mfma_f32_32x32x8 blocks (M and N multiples of 32, K of 8), with 16-bit
/// inputs; empty when it is made of one of them.
std::string mfmaShapeProblem(int64_t m, int64_t k, int64_t n,
                             int64_t elementBytes);

/// The element of the 16x16 f32 result that lane `lane` (0..63) holds in
/// its `reg`-th (0..3) result register: column lane mod 16, row
/// 4 (lane / 16) + reg.
Coord mfma16x16Element(int64_t lane, int64_t reg);

/// The inverse: who holds element (row, col) of the 16x16 result.
Slot mfma16x16Slot(Coord element);

/// The A-operand element (row m, column k of the 16x16 A tile) that lane
/// `lane` (0..63) holds in element `i` (0..3) of its 4-element source
/// register pair: row lane mod 16, column 4 (lane / 16) + i.
Coord mfma16x16OperandA(int64_t lane, int64_t i);

/// The B-operand element (row k, column n of the 16x16 B tile) that lane
/// `lane` holds in element `i`: row 4 (lane / 16) + i, column lane mod 16.
Coord mfma16x16OperandB(int64_t lane, int64_t i);

//===----------------------------------------------------------------------===//
// AMD CDNA MFMA 32x32x8 (CDNA3 ISA: v_mfma_f32_32x32x8_f16 / _bf16;
// CDNA2: ..._bf16_1k)
//===----------------------------------------------------------------------===//

/// The element of the 32x32 f32 result that lane `lane` (0..63) holds in
/// its `reg`-th (0..15) result register: column lane mod 32, row
/// 8 (reg / 4) + 4 (lane / 32) + reg mod 4.
Coord mfma32x32Element(int64_t lane, int64_t reg);

/// The inverse: who holds element (row, col) of the 32x32 result.
Slot mfma32x32Slot(Coord element);

/// The A-operand element (row m, column k of the 32x8 A tile) that lane
/// `lane` holds in element `i` (0..3): row lane mod 32, column
/// 4 (lane / 32) + i.
Coord mfma32x32OperandA(int64_t lane, int64_t i);

/// The B-operand element (row k, column n of the 8x32 B tile) that lane
/// `lane` holds in element `i`: row 4 (lane / 32) + i, column lane mod 32.
Coord mfma32x32OperandB(int64_t lane, int64_t i);

/// The LDS bank of byte `offset` (CDNA3 ISA, "Local Data Share": 32 banks,
/// each 4 bytes wide, consecutive dwords in consecutive banks).
int64_t ldsBank(int64_t offset);

} // namespace mlir::tiletag::layout

#endif // TILETAG_CONVERSION_LAYOUTS_H
