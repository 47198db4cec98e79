//===- Npy.cpp - read and write NumPy .npy arrays -------------------------===//
//
// Part of the TileTag project.
//
//===----------------------------------------------------------------------===//

#include "TileTag/Execution/Npy.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>

using namespace mlir;
using namespace mlir::tiletag::exec;

namespace {
/// The dtype of an .npy file: kind ('f', 'i', 'u', 'b') and size in bytes.
struct Dtype {
  char kind;
  unsigned bytes;
};
} // namespace

/// Finds `'key':` in the header dictionary and returns the text after it.
static std::optional<StringRef> headerField(StringRef header, StringRef key) {
  size_t pos = header.find(("'" + key + "'").str());
  if (pos == StringRef::npos)
    return std::nullopt;
  StringRef rest = header.drop_front(pos + key.size() + 2).ltrim();
  if (!rest.consume_front(":"))
    return std::nullopt;
  return rest.ltrim();
}

static double readElement(const char *p, Dtype dtype) {
  switch (dtype.kind) {
  case 'f':
    if (dtype.bytes == 8) {
      double v;
      std::memcpy(&v, p, 8);
      return v;
    }
    if (dtype.bytes == 4) {
      float v;
      std::memcpy(&v, p, 4);
      return v;
    }
    {
      uint16_t h;
      std::memcpy(&h, p, 2);
      llvm::APFloat f(llvm::APFloat::IEEEhalf(), llvm::APInt(16, h));
      bool lost;
      f.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven,
                &lost);
      return f.convertToDouble();
    }
  case 'b':
    return *p != 0;
  case 'u': {
    uint64_t v = 0;
    std::memcpy(&v, p, dtype.bytes);
    return static_cast<double>(v);
  }
  default: {
    int64_t v = 0;
    std::memcpy(&v, p, dtype.bytes);
    unsigned shift = 64 - 8 * dtype.bytes;
    v = (v << shift) >> shift; // sign-extend
    return static_cast<double>(v);
  }
  }
}

std::optional<Array> mlir::tiletag::exec::readNpy(StringRef path,
                                                  Type elementType,
                                                  std::string &error) {
  auto fileOrErr = llvm::MemoryBuffer::getFile(path, /*IsText=*/false);
  if (!fileOrErr) {
    error = "cannot read " + path.str() + ": " + fileOrErr.getError().message();
    return std::nullopt;
  }
  StringRef data = (*fileOrErr)->getBuffer();
  auto bad = [&](const Twine &why) -> std::optional<Array> {
    error = (path + " is not a valid .npy file: " + why).str();
    return std::nullopt;
  };
  if (!data.consume_front("\x93NUMPY") || data.size() < 4)
    return bad("missing the \\x93NUMPY magic");
  unsigned major = static_cast<unsigned char>(data[0]);
  data = data.drop_front(2);
  size_t headerLen;
  if (major == 1) {
    headerLen = static_cast<unsigned char>(data[0]) |
                (static_cast<unsigned char>(data[1]) << 8);
    data = data.drop_front(2);
  } else if (major == 2 || major == 3) {
    if (data.size() < 4)
      return bad("truncated header length");
    headerLen = 0;
    for (int i = 3; i >= 0; --i)
      headerLen = (headerLen << 8) | static_cast<unsigned char>(data[i]);
    data = data.drop_front(4);
  } else {
    return bad("unsupported version " + Twine(major));
  }
  if (headerLen > data.size())
    return bad("header longer than the file");
  StringRef header = data.take_front(headerLen);
  data = data.drop_front(headerLen);

  std::optional<StringRef> descr = headerField(header, "descr");
  if (!descr || !descr->consume_front("'"))
    return bad("no 'descr' in the header");
  StringRef type = descr->take_until([](char c) { return c == '\''; });
  if (type.size() < 3)
    return bad("unknown dtype '" + type + "'");
  char order = type[0];
  Dtype dtype{type[1], 0};
  if (type.drop_front(2).getAsInteger(10, dtype.bytes))
    return bad("unknown dtype '" + type + "'");
  if (order == '>' && dtype.bytes > 1)
    return bad("big-endian data is not supported");
  bool okKind = (dtype.kind == 'f' &&
                 (dtype.bytes == 2 || dtype.bytes == 4 || dtype.bytes == 8)) ||
                ((dtype.kind == 'i' || dtype.kind == 'u') &&
                 (dtype.bytes == 1 || dtype.bytes == 2 || dtype.bytes == 4 ||
                  dtype.bytes == 8)) ||
                (dtype.kind == 'b' && dtype.bytes == 1);
  if (!okKind)
    return bad("unsupported dtype '" + type + "'");

  std::optional<StringRef> fortran = headerField(header, "fortran_order");
  if (!fortran)
    return bad("no 'fortran_order' in the header");
  if (fortran->starts_with("True"))
    return bad("Fortran-ordered arrays are not supported; save with order='C'");

  std::optional<StringRef> shapeText = headerField(header, "shape");
  if (!shapeText || !shapeText->consume_front("("))
    return bad("no 'shape' in the header");
  StringRef dims = shapeText->take_until([](char c) { return c == ')'; });
  SmallVector<int64_t> shape;
  SmallVector<StringRef> parts;
  dims.split(parts, ',', -1, /*KeepEmpty=*/false);
  int64_t count = 1;
  for (StringRef part : parts) {
    part = part.trim();
    if (part.empty())
      continue;
    int64_t d;
    if (part.getAsInteger(10, d) || d < 0 || d > (int64_t{1} << 40))
      return bad("bad dimension '" + part + "'");
    shape.push_back(d);
    count *= d;
    if (count > (int64_t{1} << 34))
      return bad("array too large");
  }
  if (static_cast<uint64_t>(count) * dtype.bytes != data.size())
    return bad("data holds " + Twine(data.size()) +
               " bytes but the shape needs " + Twine(count * dtype.bytes));

  Array array(elementType, shape);
  for (int64_t i = 0; i < count; ++i)
    array.data[i] =
        roundTo(elementType, readElement(data.data() + i * dtype.bytes, dtype));
  return array;
}

LogicalResult mlir::tiletag::exec::writeNpy(StringRef path, const Array &array,
                                            std::string &error) {
  Type t = array.elementType;
  std::string descr;
  unsigned bytes;
  if (t.isF64()) {
    descr = "<f8";
    bytes = 8;
  } else if (llvm::isa<FloatType>(t)) {
    descr = "<f4";
    bytes = 4;
  } else if (t.isInteger(1)) {
    descr = "|b1";
    bytes = 1;
  } else if (t.isIntOrIndex() && !t.isIndex() &&
             t.getIntOrFloatBitWidth() <= 32) {
    descr = "<i4";
    bytes = 4;
  } else {
    descr = "<i8";
    bytes = 8;
  }
  std::string shape;
  for (int64_t d : array.shape)
    shape += std::to_string(d) + ", ";
  if (array.shape.size() > 1)
    shape.erase(shape.size() - 2);
  std::string header = "{'descr': '" + descr +
                       "', 'fortran_order': False, 'shape': (" + shape + "), }";
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';

  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec) {
    error = "cannot write " + path.str() + ": " + ec.message();
    return failure();
  }
  os << "\x93NUMPY" << '\x01' << '\x00';
  os << static_cast<char>(header.size() & 0xff)
     << static_cast<char>(header.size() >> 8);
  os << header;
  for (double v : array.data) {
    char buf[8];
    if (bytes == 8 && descr == "<f8") {
      std::memcpy(buf, &v, 8);
    } else if (bytes == 4 && descr == "<f4") {
      float f = static_cast<float>(v);
      std::memcpy(buf, &f, 4);
    } else if (bytes == 1) {
      buf[0] = v != 0;
    } else if (bytes == 4) {
      int32_t i = static_cast<int32_t>(v);
      std::memcpy(buf, &i, 4);
    } else {
      int64_t i = static_cast<int64_t>(v);
      std::memcpy(buf, &i, 8);
    }
    os.write(buf, bytes);
  }
  return success();
}
