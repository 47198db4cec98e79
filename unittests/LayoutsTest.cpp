//===- LayoutsTest.cpp - layouts against the vendor tables ----------------===//
//
// Part of the TileTag project.
//
// Expected values are entries of the PTX ISA's wgmma .m64nNk16 accumulator
// fragment figure, of the CU_TENSOR_MAP_SWIZZLE_128B pattern, and of the
// CDNA3 ISA's v_mfma_f32_16x16x16 result layout, plus the property that
// every layout is a bijection between elements and (thread, register) slots.
//
//===----------------------------------------------------------------------===//

#include "TileTag/Conversion/Layouts.h"

#include "gtest/gtest.h"

#include <map>
#include <set>

using namespace mlir::tiletag::layout;

namespace {

TEST(LayoutsTest, WgmmaAccumulatorTable) {
  EXPECT_EQ(wgmmaAccumulatorRegisters(128), 64);
  EXPECT_EQ(wgmmaAccumulatorRegisters(8), 4);
  // Thread 0: d0, d1 in row 0, d2, d3 in row 8; d4 starts the next 8 columns.
  EXPECT_EQ(wgmmaAccumulatorElement(0, 0), (Coord{0, 0}));
  EXPECT_EQ(wgmmaAccumulatorElement(0, 1), (Coord{0, 1}));
  EXPECT_EQ(wgmmaAccumulatorElement(0, 2), (Coord{8, 0}));
  EXPECT_EQ(wgmmaAccumulatorElement(0, 3), (Coord{8, 1}));
  EXPECT_EQ(wgmmaAccumulatorElement(0, 4), (Coord{0, 8}));
  // Four lanes share a row, two columns each.
  EXPECT_EQ(wgmmaAccumulatorElement(1, 0), (Coord{0, 2}));
  EXPECT_EQ(wgmmaAccumulatorElement(3, 1), (Coord{0, 7}));
  EXPECT_EQ(wgmmaAccumulatorElement(4, 0), (Coord{1, 0}));
  EXPECT_EQ(wgmmaAccumulatorElement(31, 3), (Coord{15, 7}));
  // Warp w owns rows 16w .. 16w + 15.
  EXPECT_EQ(wgmmaAccumulatorElement(32, 0), (Coord{16, 0}));
  EXPECT_EQ(wgmmaAccumulatorElement(127, 63), (Coord{63, 127}));
}

TEST(LayoutsTest, WgmmaAccumulatorIsABijection) {
  for (int64_t n : {8, 64, 128, 256}) {
    std::set<std::pair<int64_t, int64_t>> seen;
    for (int64_t t = 0; t < 128; ++t)
      for (int64_t r = 0; r < wgmmaAccumulatorRegisters(n); ++r) {
        Coord c = wgmmaAccumulatorElement(t, r);
        ASSERT_GE(c.row, 0);
        ASSERT_LT(c.row, 64);
        ASSERT_GE(c.col, 0);
        ASSERT_LT(c.col, n);
        EXPECT_TRUE(seen.insert({c.row, c.col}).second);
        EXPECT_EQ(wgmmaAccumulatorSlot(c), (Slot{t, r}));
      }
    EXPECT_EQ(static_cast<int64_t>(seen.size()), 64 * n);
  }
}

// The lowering computes only the thread-dependent part of an accumulator
// element at run time and adds the register's part as a constant: that split
// must hold for every thread and register.
TEST(LayoutsTest, WgmmaAccumulatorSplitsIntoThreadAndRegisterParts) {
  for (int64_t n : {64, 128, 256})
    for (int64_t t = 0; t < 128; ++t)
      for (int64_t r = 0; r < wgmmaAccumulatorRegisters(n); ++r) {
        Coord whole = wgmmaAccumulatorElement(t, r);
        Coord byThread = wgmmaAccumulatorElement(t, 0);
        Coord byReg = wgmmaAccumulatorElement(0, r);
        ASSERT_EQ(whole, (Coord{byThread.row + byReg.row, byThread.col + byReg.col}))
            << "thread " << t << " register " << r;
      }
}

// A row vector (attention's row maximum) is held in each thread's two row
// slots: the row of every register is one of them, the slot's row splits
// into a thread part and a constant as elements do, and the lanes with
// lane mod 4 = 0 (each row's writer) hold every row of the 64 exactly once.
TEST(LayoutsTest, WgmmaRowSlots) {
  for (int64_t n : {8, 64, 256})
    for (int64_t t = 0; t < 128; ++t)
      for (int64_t r = 0; r < wgmmaAccumulatorRegisters(n); ++r)
        ASSERT_EQ(wgmmaAccumulatorElement(t, r).row,
                  wgmmaRowOfSlot(t, wgmmaRowSlotOfRegister(r)))
            << "thread " << t << " register " << r;
  std::set<int64_t> written;
  for (int64_t t = 0; t < 128; ++t)
    for (int64_t slot = 0; slot < kWgmmaRowSlots; ++slot) {
      EXPECT_EQ(wgmmaRowOfSlot(t, slot),
                wgmmaRowOfSlot(t, 0) + wgmmaRowOfSlot(0, slot));
      if (t % 4 == 0)
        EXPECT_TRUE(written.insert(wgmmaRowOfSlot(t, slot)).second);
    }
  EXPECT_EQ(written, [] {
    std::set<int64_t> all;
    for (int64_t row = 0; row < 64; ++row)
      all.insert(row);
    return all;
  }());
}

TEST(LayoutsTest, WgmmaRegisterATable) {
  // Thread 0: a0, a1 in row 0; a2, a3 in row 8; a4..a7 the same 8 columns on.
  EXPECT_EQ(wgmmaRegisterAElement(0, 0, 0), (Coord{0, 0}));
  EXPECT_EQ(wgmmaRegisterAElement(0, 0, 1), (Coord{0, 1}));
  EXPECT_EQ(wgmmaRegisterAElement(0, 1, 0), (Coord{8, 0}));
  EXPECT_EQ(wgmmaRegisterAElement(0, 2, 1), (Coord{0, 9}));
  EXPECT_EQ(wgmmaRegisterAElement(0, 3, 0), (Coord{8, 8}));
  EXPECT_EQ(wgmmaRegisterAElement(5, 0, 0), (Coord{1, 2}));
  EXPECT_EQ(wgmmaRegisterAElement(31, 3, 1), (Coord{15, 15}));
  EXPECT_EQ(wgmmaRegisterAElement(127, 3, 1), (Coord{63, 15}));
}

// A taken from registers is packed from the accumulator registers that hold
// its elements in the same thread: the layouts agree for every thread, step
// and register, so no value crosses lanes.
TEST(LayoutsTest, WgmmaRegisterAIsTheAccumulatorsLayout) {
  for (int64_t n : {16, 64, 128})
    for (int64_t t = 0; t < 128; ++t)
      for (int64_t step = 0; step < n / 16; ++step)
        for (int64_t reg = 0; reg < 4; ++reg)
          for (int64_t half = 0; half < 2; ++half) {
            Coord a = wgmmaRegisterAElement(t, reg, half);
            int64_t r = wgmmaAccumulatorRegisterOfA(step, reg, half);
            ASSERT_LT(r, wgmmaAccumulatorRegisters(n));
            ASSERT_EQ(wgmmaAccumulatorElement(t, r),
                      (Coord{a.row, a.col + 16 * step}))
                << "thread " << t << " step " << step << " register " << reg;
          }
}

TEST(LayoutsTest, Swizzle128BTable) {
  EXPECT_EQ(swizzle128B(0), 0);
  EXPECT_EQ(swizzle128B(16), 16);
  EXPECT_EQ(swizzle128B(5), 5);          // bytes within a chunk stay
  EXPECT_EQ(swizzle128B(128), 128 + 16); // row 1, chunk 0 -> chunk 1
  EXPECT_EQ(swizzle128B(128 + 16), 128); // row 1, chunk 1 -> chunk 0
  EXPECT_EQ(swizzle128B(7 * 128 + 7 * 16), 7 * 128); // row 7, chunk 7 -> 0
  EXPECT_EQ(swizzle128B(1024), 1024); // the pattern repeats per 1 KiB
  EXPECT_EQ(swizzle128B(1024 + 3 * 128), 1024 + 3 * 128 + 3 * 16);
}

// The AMD lowering reads an MFMA A fragment (4 16-bit elements of a row,
// 8-byte aligned) from a swizzled slot with one 8-byte load: the swizzle
// moves whole 16-byte chunks, so an aligned 8-byte group stays contiguous.
TEST(LayoutsTest, Swizzle128BKeepsAlignedGroups) {
  for (int64_t offset = 0; offset < 4096; offset += 8)
    for (int64_t d = 0; d < 8; ++d)
      EXPECT_EQ(swizzle128B(offset + d), swizzle128B(offset) + d);
}

TEST(LayoutsTest, Swizzle128BSpreadsColumnsOverBanks) {
  for (int64_t offset = 0; offset < 4096; ++offset) {
    int64_t s = swizzle128B(offset);
    EXPECT_EQ(swizzle128B(s), offset); // an involution
    EXPECT_EQ(s / 128, offset / 128);  // stays in its row
  }
  // One 16-byte column chunk of 8 consecutive rows: 8 distinct chunks.
  for (int64_t chunk = 0; chunk < 8; ++chunk) {
    std::set<int64_t> chunks;
    for (int64_t row = 0; row < 8; ++row)
      chunks.insert((swizzle128B(row * 128 + chunk * 16) % 128) / 16);
    EXPECT_EQ(chunks.size(), 8u);
  }
}

/// An MFMA shape's layouts: its result blocks are mn x mn, each lane holds
/// `regs` of them; A is mn x k, B k x mn, `perLane` elements a lane (4 of
/// 16 bits, 8 of fp8).
struct MfmaLayout {
  int64_t mn, k, regs, perLane;
  Coord (*element)(int64_t, int64_t);
  Slot (*slot)(Coord);
  Coord (*operandA)(int64_t, int64_t, int64_t);
  Coord (*operandB)(int64_t, int64_t, int64_t);
};

/// Every result element is held once, by the (lane, register) its slot
/// function names; every operand element is supplied once; a lane's B
/// column is the column of the results it holds (D[m][n] sums over the
/// lanes of its column); and each coordinate is a lane part plus an
/// element part, as the lowering computes it.
void checkMfmaLayout(const MfmaLayout &l) {
  std::set<std::pair<int64_t, int64_t>> seen, a, b;
  for (int64_t lane = 0; lane < 64; ++lane)
    for (int64_t reg = 0; reg < l.regs; ++reg) {
      Coord c = l.element(lane, reg), c0 = l.element(lane, 0),
            cr = l.element(0, reg);
      EXPECT_TRUE(seen.insert({c.row, c.col}).second);
      EXPECT_EQ(l.slot(c), (Slot{lane, reg}));
      EXPECT_EQ(c, (Coord{c0.row + cr.row, c0.col + cr.col}));
    }
  EXPECT_EQ(static_cast<int64_t>(seen.size()), l.mn * l.mn);
  for (int64_t lane = 0; lane < 64; ++lane)
    for (int64_t i = 0; i < l.perLane; ++i) {
      Coord ca = l.operandA(lane, i, l.perLane),
            cb = l.operandB(lane, i, l.perLane);
      EXPECT_TRUE(a.insert({ca.row, ca.col}).second);
      EXPECT_TRUE(b.insert({cb.row, cb.col}).second);
      EXPECT_EQ(cb.col, l.element(lane, 0).col);
      Coord a0 = l.operandA(lane, 0, l.perLane),
            ai = l.operandA(0, i, l.perLane);
      Coord b0 = l.operandB(lane, 0, l.perLane),
            bi = l.operandB(0, i, l.perLane);
      EXPECT_EQ(ca, (Coord{a0.row + ai.row, a0.col + ai.col}));
      EXPECT_EQ(cb, (Coord{b0.row + bi.row, b0.col + bi.col}));
    }
  EXPECT_EQ(static_cast<int64_t>(a.size()), l.mn * l.k);
  EXPECT_EQ(static_cast<int64_t>(b.size()), l.mn * l.k);
}

// v_mfma_f32_16x16x16_{f16,bf16} (CDNA3 ISA, "Matrix Arithmetic
// Instructions", the dependent-operand layouts of the 16x16x16 shapes):
// lane l's register r holds D[4 (l / 16) + r][l mod 16]; lane l supplies
// A[l mod 16][4 (l / 16) + i] and B[4 (l / 16) + i][l mod 16].
TEST(LayoutsTest, Mfma16x16) {
  EXPECT_EQ(mfma16x16Element(0, 0), (Coord{0, 0}));
  EXPECT_EQ(mfma16x16Element(0, 3), (Coord{3, 0}));
  EXPECT_EQ(mfma16x16Element(15, 3), (Coord{3, 15}));
  EXPECT_EQ(mfma16x16Element(16, 0), (Coord{4, 0}));
  EXPECT_EQ(mfma16x16Element(63, 3), (Coord{15, 15}));
  EXPECT_EQ(mfma16x16OperandA(0, 3), (Coord{0, 3}));
  EXPECT_EQ(mfma16x16OperandA(17, 1), (Coord{1, 5}));
  EXPECT_EQ(mfma16x16OperandA(63, 3), (Coord{15, 15}));
  EXPECT_EQ(mfma16x16OperandB(17, 1), (Coord{5, 1}));
  EXPECT_EQ(mfma16x16OperandB(63, 3), (Coord{15, 15}));
  checkMfmaLayout({16, 16, 4, 4, mfma16x16Element, mfma16x16Slot,
                   mfma16x16OperandA, mfma16x16OperandB});
}

// v_mfma_f32_16x16x32_{fp8_fp8,bf8_bf8} (CDNA3 ISA, the same section): the
// result as for 16x16x16; lane l supplies 8 fp8 of each operand (one
// 64-bit register pair), A[l mod 16][8 (l / 16) + i] and
// B[8 (l / 16) + i][l mod 16].
TEST(LayoutsTest, Mfma16x16Fp8) {
  EXPECT_EQ(mfma16x16OperandA(0, 7, 8), (Coord{0, 7}));
  EXPECT_EQ(mfma16x16OperandA(17, 1, 8), (Coord{1, 9}));
  EXPECT_EQ(mfma16x16OperandA(63, 7, 8), (Coord{15, 31}));
  EXPECT_EQ(mfma16x16OperandB(17, 1, 8), (Coord{9, 1}));
  EXPECT_EQ(mfma16x16OperandB(63, 7, 8), (Coord{31, 15}));
  checkMfmaLayout({16, 32, 4, 8, mfma16x16Element, mfma16x16Slot,
                   mfma16x16OperandA, mfma16x16OperandB});
}

// v_mfma_f32_32x32x8_{f16,bf16} (the same section, 32x32x8 shapes; CDNA2's
// _bf16_1k is the same): lane l's register r holds
// D[8 (r / 4) + 4 (l / 32) + r mod 4][l mod 32]; lane l supplies
// A[l mod 32][4 (l / 32) + i] and B[4 (l / 32) + i][l mod 32].
TEST(LayoutsTest, Mfma32x32) {
  EXPECT_EQ(mfma32x32Element(0, 0), (Coord{0, 0}));
  EXPECT_EQ(mfma32x32Element(0, 3), (Coord{3, 0}));
  EXPECT_EQ(mfma32x32Element(0, 4), (Coord{8, 0}));
  EXPECT_EQ(mfma32x32Element(31, 15), (Coord{27, 31}));
  EXPECT_EQ(mfma32x32Element(32, 0), (Coord{4, 0}));
  EXPECT_EQ(mfma32x32Element(63, 15), (Coord{31, 31}));
  EXPECT_EQ(mfma32x32OperandA(33, 1), (Coord{1, 5}));
  EXPECT_EQ(mfma32x32OperandA(63, 3), (Coord{31, 7}));
  EXPECT_EQ(mfma32x32OperandB(33, 1), (Coord{5, 1}));
  EXPECT_EQ(mfma32x32OperandB(63, 3), (Coord{7, 31}));
  checkMfmaLayout({32, 8, 16, 4, mfma32x32Element, mfma32x32Slot,
                   mfma32x32OperandA, mfma32x32OperandB});
}

// v_mfma_f32_32x32x16_{fp8_fp8,bf8_bf8} (CDNA3 ISA): the result as for
// 32x32x8; lane l supplies A[l mod 32][8 (l / 32) + i] and
// B[8 (l / 32) + i][l mod 32], i < 8.
TEST(LayoutsTest, Mfma32x32Fp8) {
  EXPECT_EQ(mfma32x32OperandA(33, 1, 8), (Coord{1, 9}));
  EXPECT_EQ(mfma32x32OperandA(63, 7, 8), (Coord{31, 15}));
  EXPECT_EQ(mfma32x32OperandB(33, 1, 8), (Coord{9, 1}));
  EXPECT_EQ(mfma32x32OperandB(63, 7, 8), (Coord{15, 31}));
  checkMfmaLayout({32, 16, 16, 8, mfma32x32Element, mfma32x32Slot,
                   mfma32x32OperandA, mfma32x32OperandB});
}

// Which shapes a product is made of.
TEST(LayoutsTest, MfmaShapes) {
  EXPECT_EQ(mfmaShapeProblem(64, 8, 64, 2), "");
  EXPECT_EQ(mfmaShapeProblem(16, 16, 16, 2), "");
  EXPECT_NE(mfmaShapeProblem(16, 8, 16, 2), "");
  EXPECT_NE(mfmaShapeProblem(48, 8, 48, 2), "");
  EXPECT_NE(mfmaShapeProblem(64, 16, 64, 4), "");
  // fp8: K of 16 (32x32x16) or 32 (16x16x32).
  EXPECT_EQ(mfmaShapeProblem(64, 16, 64, 1), "");
  EXPECT_EQ(mfmaShapeProblem(16, 32, 16, 1), "");
  EXPECT_NE(mfmaShapeProblem(16, 16, 16, 1), "");
  EXPECT_NE(mfmaShapeProblem(64, 8, 64, 1), "");
}

// The LDS layout of the AMD lowering (128-byte XOR swizzle) against the
// CDNA3 ISA's LDS banks (32 banks of 4 bytes): an MFMA A operand of a
// 128x64 bf16 slot is read 8 bytes a lane (4 bf16 of one row), 16 rows at
// the same column. Row-major, the 16 rows' words share 2 banks: 16 words
// queue at one bank. Swizzled, rows r and r + 8 share a 16-byte chunk's
// banks: 2 words a bank for 16 lanes, and at most 4 for the whole wave
// (128 words over 32 banks cannot do better).
TEST(LayoutsTest, LdsBanksOfMfmaOperandA) {
  // rowBytes: 128 (a 64-deep bf16 K slot) or 64 (32-deep: its row-major
  // bytes swizzled as 128-byte lines, two rows a line).
  auto worst = [](int64_t lanes, int64_t rowBytes, bool swizzled) {
    std::map<int64_t, std::set<int64_t>> words; // bank -> distinct words
    for (int64_t lane = 0; lane < lanes; ++lane)
      for (int64_t i = 0; i < 4; ++i) {
        Coord e = mfma16x16OperandA(lane, i);
        int64_t byte = e.row * rowBytes + e.col * 2;
        if (swizzled)
          byte = swizzle128B(byte);
        words[ldsBank(byte)].insert(byte / 4);
      }
    size_t most = 0;
    for (auto &[bank, w] : words)
      most = std::max(most, w.size());
    return most;
  };
  EXPECT_EQ(worst(16, 128, false), 16u);
  EXPECT_EQ(worst(16, 128, true), 2u);
  EXPECT_EQ(worst(64, 128, false), 16u);
  EXPECT_EQ(worst(64, 128, true), 4u);
  // 64-byte rows: rows r and r + 2 share banks row-major (8 words a bank);
  // swizzled, a line's two rows and lines l, l + 8 of 16 rows spread over
  // all 8 chunks: 2 words a bank for 16 lanes, 4 for the wave.
  EXPECT_EQ(worst(16, 64, false), 8u);
  EXPECT_EQ(worst(16, 64, true), 2u);
  EXPECT_EQ(worst(64, 64, false), 8u);
  EXPECT_EQ(worst(64, 64, true), 4u);
  EXPECT_EQ(ldsBank(0), 0);
  EXPECT_EQ(ldsBank(4), 1);
  EXPECT_EQ(ldsBank(124), 31);
  EXPECT_EQ(ldsBank(128), 0);
}

// A wgmma lane's column pair: f32 (8 bytes) and bf16 (4 bytes) pairs are
// one access in rows of a multiple of them; wider than 16 bytes, not a
// power of 2, or straddling a row, not.
TEST(LayoutsTest, VectorRuns) {
  EXPECT_TRUE(isVectorRun(8, 512));
  EXPECT_TRUE(isVectorRun(4, 256));
  EXPECT_TRUE(isVectorRun(16, 64));
  EXPECT_FALSE(isVectorRun(32, 512));
  EXPECT_FALSE(isVectorRun(12, 48));
  EXPECT_FALSE(isVectorRun(8, 36));
  EXPECT_FALSE(isVectorRun(0, 64));
}

} // namespace
