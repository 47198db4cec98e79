//===- Layouts.cpp - register fragment and shared-memory layouts ----------===//
//
// Part of the TileTag project.
//
//===----------------------------------------------------------------------===//

#include "TileTag/Conversion/Layouts.h"

using namespace mlir::tiletag::layout;

int64_t mlir::tiletag::layout::wgmmaAccumulatorRegisters(int64_t n) {
  return 64 * n / 128;
}

Coord mlir::tiletag::layout::wgmmaAccumulatorElement(int64_t thread,
                                                     int64_t reg) {
  int64_t warp = thread / 32, lane = thread % 32;
  int64_t block = reg / 4;       // 8-column block
  int64_t upper = (reg / 2) % 2; // rows +8
  int64_t pair = reg % 2;        // second column of the pair
  return {16 * warp + lane / 4 + 8 * upper, 8 * block + 2 * (lane % 4) + pair};
}

Slot mlir::tiletag::layout::wgmmaAccumulatorSlot(Coord e) {
  int64_t warp = e.row / 16, inWarp = e.row % 16;
  int64_t upper = inWarp / 8, laneRow = inWarp % 8;
  int64_t block = e.col / 8, inBlock = e.col % 8;
  int64_t lane = 4 * laneRow + inBlock / 2;
  return {32 * warp + lane, 4 * block + 2 * upper + inBlock % 2};
}

int64_t mlir::tiletag::layout::wgmmaRowOfSlot(int64_t thread, int64_t slot) {
  return 16 * (thread / 32) + (thread % 32) / 4 + 8 * slot;
}

int64_t mlir::tiletag::layout::wgmmaRowSlotOfRegister(int64_t reg) {
  return (reg / 2) % 2;
}

Coord mlir::tiletag::layout::wgmmaRegisterAElement(int64_t thread,
                                                   int64_t reg, int64_t half) {
  int64_t warp = thread / 32, lane = thread % 32;
  return {16 * warp + lane / 4 + 8 * (reg % 2),
          2 * (lane % 4) + half + 8 * (reg / 2)};
}

int64_t mlir::tiletag::layout::wgmmaAccumulatorRegisterOfA(int64_t step,
                                                           int64_t reg,
                                                           int64_t half) {
  return 8 * step + 2 * reg + half;
}

int64_t mlir::tiletag::layout::swizzle128B(int64_t offset) {
  int64_t row = (offset >> 7) & 7; // row within the 8-row, 1024-byte atom
  return offset ^ (row << 4);      // XOR into the 16-byte chunk index
}

bool mlir::tiletag::layout::isVectorRun(int64_t runBytes, int64_t rowBytes) {
  return runBytes > 0 && runBytes <= 16 && (runBytes & (runBytes - 1)) == 0 &&
         rowBytes % runBytes == 0;
}

std::string mlir::tiletag::layout::wgmmaShapeProblem(int64_t m, int64_t k,
                                                     int64_t n,
                                                     int64_t elementBytes,
                                                     bool bKMajor) {
  if (elementBytes != 2 && elementBytes != 1)
    return "wgmma multiplies 16-bit (bf16, f16) or fp8 inputs";
  if (elementBytes == 1 && !bKMajor)
    return "fp8 wgmma reads B K-major only (B the transpose of a slot of N "
           "rows of K)";
  if (m % 64 != 0)
    return "its " + std::to_string(m) +
           " rows are no multiple of 64 (one m64 wgmma per 64 rows)";
  // More than one panel of K: an N-major B's rows of each panel are a
  // plain panel-layout tile only when B has one column panel (N 128 bytes
  // at most); a K-major B has its own panels of K, as A has.
  if (k * elementBytes % 128 != 0 ||
      (k * elementBytes != 128 && !bKMajor && n * elementBytes > 128))
    return "its contracted extent of " + std::to_string(k) +
           " is not one 128-byte swizzle panel (" +
           std::to_string(128 / elementBytes) +
           " elements), or whole panels with B K-major or at most " +
           std::to_string(128 / elementBytes) + " columns";
  if (n % 64 != 0 || n > 256)
    return "its " + std::to_string(n) +
           " columns are not a multiple of 64 up to 256";
  return "";
}

std::string mlir::tiletag::layout::mfmaShapeProblem(int64_t m, int64_t k,
                                                    int64_t n,
                                                    int64_t elementBytes) {
  if (elementBytes != 2 && elementBytes != 1)
    return "MFMA multiplies 16-bit (bf16, f16) or fp8 inputs here";
  // A lane supplies 8 bytes of each operand per instruction.
  int64_t perLane = 8 / elementBytes;
  bool small = m % 16 == 0 && n % 16 == 0 && k % (4 * perLane) == 0;
  bool large = m % 32 == 0 && n % 32 == 0 && k % (2 * perLane) == 0;
  if (!small && !large)
    return "its " + std::to_string(m) + "x" + std::to_string(n) + "x" +
           std::to_string(k) + " shape is made of neither 16x16x" +
           std::to_string(4 * perLane) + " nor 32x32x" +
           std::to_string(2 * perLane) + " MFMA blocks";
  return "";
}

Coord mlir::tiletag::layout::mfma16x16Element(int64_t lane, int64_t reg) {
  return {4 * (lane / 16) + reg, lane % 16};
}

Slot mlir::tiletag::layout::mfma16x16Slot(Coord e) {
  return {16 * (e.row / 4) + e.col, e.row % 4};
}

Coord mlir::tiletag::layout::mfma16x16OperandA(int64_t lane, int64_t i,
                                               int64_t perLane) {
  return {lane % 16, perLane * (lane / 16) + i};
}

Coord mlir::tiletag::layout::mfma16x16OperandB(int64_t lane, int64_t i,
                                               int64_t perLane) {
  return {perLane * (lane / 16) + i, lane % 16};
}

Coord mlir::tiletag::layout::mfma32x32Element(int64_t lane, int64_t reg) {
  return {8 * (reg / 4) + 4 * (lane / 32) + reg % 4, lane % 32};
}

Slot mlir::tiletag::layout::mfma32x32Slot(Coord e) {
  return {32 * ((e.row / 4) % 2) + e.col, 4 * (e.row / 8) + e.row % 4};
}

Coord mlir::tiletag::layout::mfma32x32OperandA(int64_t lane, int64_t i,
                                               int64_t perLane) {
  return {lane % 32, perLane * (lane / 32) + i};
}

Coord mlir::tiletag::layout::mfma32x32OperandB(int64_t lane, int64_t i,
                                               int64_t perLane) {
  return {perLane * (lane / 32) + i, lane % 32};
}

int64_t mlir::tiletag::layout::ldsBank(int64_t offset) {
  return (offset / 4) % 32;
}
