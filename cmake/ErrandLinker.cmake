# Links go through LLVM's lld rather than GNU ld. ccache keeps compiles from one run to the next
# but not links, so every run, warm or cold, relinks each tree's binaries: with GNU ld the
# end-to-end suite alone took 4.5 s to link, with lld 0.8 s (docs/testing.md). The output is
# the same kind of ELF file; nothing errand checks depends on which linker wrote it.
#
# A compiler that cannot link with lld stops the configure step, instead of quietly linking
# with the slow one: install lld (scripts/setup does) or set ERRAND_LINK_WITH_LLD=OFF.
option(ERRAND_LINK_WITH_LLD "Link with LLVM's lld (-fuse-ld=lld) instead of the compiler's default linker" ON)
if(ERRAND_LINK_WITH_LLD)
  include(CheckLinkerFlag)
  check_linker_flag(CXX "-fuse-ld=lld" ERRAND_CXX_LINKS_WITH_LLD)
  if(NOT ERRAND_CXX_LINKS_WITH_LLD)
    message(FATAL_ERROR "ERRAND_LINK_WITH_LLD is ON but ${CMAKE_CXX_COMPILER} cannot link with "
                        "-fuse-ld=lld: install lld (scripts/setup does), or configure with "
                        "-DERRAND_LINK_WITH_LLD=OFF to link with the compiler's default linker")
  endif()
  add_link_options(-fuse-ld=lld)
endif()
