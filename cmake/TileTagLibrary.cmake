# TileTag's libraries are MLIR libraries (add_mlir_library and its
# dialect variant) installed by TileTag itself: into TileTag's export set,
# imported by downstream projects as TileTag::<name> (TileTagConfig.cmake),
# with the installed headers on their include path.

function(tiletag_export_library name)
  set_property(GLOBAL APPEND PROPERTY TILETAG_EXPORTED_LIBRARIES ${name})
  target_include_directories(${name} INTERFACE $<INSTALL_INTERFACE:include>)
endfunction()

function(tiletag_add_library name)
  add_mlir_library(${name} DISABLE_INSTALL ${ARGN})
  tiletag_export_library(${name})
endfunction()

function(tiletag_add_dialect_library name)
  add_mlir_dialect_library(${name} DISABLE_INSTALL ${ARGN})
  tiletag_export_library(${name})
endfunction()
