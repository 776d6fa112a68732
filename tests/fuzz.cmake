# Fuzz regression tests: every fuzz target's seed corpus and saved crashers
# (fuzz/corpus/<target>, fuzz/crashers/<target>) replayed through the
# target's LLVMFuzzerTestOneInput by a plain driver, in every build (gcc or
# clang, sanitizers or not).  With IBSCOPE_FUZZ=ON (clang) also a short real
# fuzzing run per target, labelled "fuzz" (ctest -L fuzz).
set(IBSCOPE_FUZZ_SRC ${CMAKE_SOURCE_DIR}/fuzz)
set(IBSCOPE_FUZZ_NAMES fuzz_parse fuzz_engine)
if(IBSCOPE_MERGE_SOURCES)
  list(APPEND IBSCOPE_FUZZ_NAMES fuzz_merge)
endif()

foreach(target ${IBSCOPE_FUZZ_NAMES})
  set(replay ${target}_replay)
  add_executable(${replay} ${IBSCOPE_FUZZ_SRC}/replay_main.c ${IBSCOPE_FUZZ_SRC}/${target}.c
                           ${IBSCOPE_FUZZ_SRC}/fuzz_check.c)
  target_link_libraries(${replay} PRIVATE ibscope_core)
  if(target STREQUAL "fuzz_merge")
    target_sources(${replay} PRIVATE ${IBSCOPE_MERGE_SOURCES})
    target_include_directories(${replay} PRIVATE ${IBSCOPE_ANALYZER_INCLUDE})
    target_compile_definitions(${replay} PRIVATE _DEFAULT_SOURCE)
    target_link_libraries(${replay} PRIVATE m)
  endif()
  if(IBSCOPE_FUZZ)
    # The core is instrumented: the driver needs the sanitizer runtimes too.
    target_compile_options(${replay} PRIVATE -fsanitize=address,undefined -fno-sanitize-recover=all)
    target_link_options(${replay} PRIVATE -fsanitize=address,undefined -fno-sanitize-recover=all)
  endif()
  set_target_properties(${replay} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
  add_test(NAME fuzz.replay.${target}
           COMMAND ${replay} ${IBSCOPE_FUZZ_SRC}/corpus/${target} ${IBSCOPE_FUZZ_SRC}/crashers/${target})

  if(IBSCOPE_FUZZ AND TARGET ${target})
    # New inputs go to a scratch corpus in the build tree; the committed one is only read.
    set(scratch ${CMAKE_BINARY_DIR}/fuzz-scratch/${target})
    file(MAKE_DIRECTORY ${scratch}/corpus ${scratch}/artifacts)
    add_test(NAME fuzz.run.${target}
             COMMAND ${target} -max_total_time=20 -timeout=10 -rss_limit_mb=2048
                     -print_final_stats=1 -artifact_prefix=${scratch}/artifacts/
                     ${scratch}/corpus ${IBSCOPE_FUZZ_SRC}/corpus/${target})
    set_tests_properties(fuzz.run.${target} PROPERTIES LABELS fuzz TIMEOUT 120)
  endif()
endforeach()
