# ibscope --live on a veth pair in a network namespace, fed by tcpreplay
# (tests/live/test_live.py): one ctest test per group.  Needs root; skipped
# (77) with the reason where namespaces are not allowed, except in CI
# (CI=true) and under IBSCOPE_REQUIRE_NETNS=1, where that fails.
find_package(Python3 COMPONENTS Interpreter)
if(TARGET ibscope AND Python3_Interpreter_FOUND)
  foreach(group errors stream latency sigint drops view forecast timers)
    add_test(NAME live.${group}
             COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/live/test_live.py
                     --ibscope ${CMAKE_BINARY_DIR}/bin/ibscope
                     --gen ${CMAKE_BINARY_DIR}/bin/ibscope-gen
                     --source-dir ${PROJECT_SOURCE_DIR}
                     ${group})
    set_tests_properties(live.${group} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
    # These two measure the replay's pace (a finding within 1 s; the port rate
    # of a ramp): alone on the machine, so that another test's load is not theirs.
    if(group MATCHES "^(latency|forecast)$")
      set_tests_properties(live.${group} PROPERTIES RUN_SERIAL TRUE)
    endif()
  endforeach()
endif()
