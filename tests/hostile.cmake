# The analyzer under fire (tests/hostile/): hostile captures made from raw
# bytes, and short versions of the tuple flood and the redirect storm streamed
# into 'ibscope -'.  The long runs are tests/hostile/long_runs.sh (not ctest).
# Included by tests/CMakeLists.txt.
find_package(Python3 COMPONENTS Interpreter)
if(TARGET ibscope AND Python3_Interpreter_FOUND)
  # Peak RSS means nothing under the sanitizers' shadow memory: not checked there.
  if(IBSCOPE_SANITIZE OR IBSCOPE_FUZZ)
    set(IBSCOPE_HOSTILE_RSS 0)
  else()
    set(IBSCOPE_HOSTILE_RSS 256)
  endif()
  foreach(group records pcapng timestamps extract commid pause)
    add_test(NAME hostile.${group}
             COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/hostile/test_hostile.py
                     --ibscope ${CMAKE_BINARY_DIR}/bin/ibscope ${group})
    set_tests_properties(hostile.${group} PROPERTIES TIMEOUT 120)
  endforeach()
  # 300,000 never-answered REQs and as many unanswered Gets: past both
  # caps (131,072 connections, 262,144 transactions), so both evict.
  add_test(NAME hostile.flood_short
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/hostile/test_hostile.py
                   --ibscope ${CMAKE_BINARY_DIR}/bin/ibscope --max-rss-mib ${IBSCOPE_HOSTILE_RSS}
                   --flood 300000 --gets 300000 flood)
  # 20,000 redirects without requests: twice max_chains (10,000).
  add_test(NAME hostile.redirect_short
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/hostile/test_hostile.py
                   --ibscope ${CMAKE_BINARY_DIR}/bin/ibscope --max-rss-mib ${IBSCOPE_HOSTILE_RSS}
                   --redirects 20000 redirect)
  set_tests_properties(hostile.flood_short hostile.redirect_short PROPERTIES TIMEOUT 600)
  # A capture crafted against the packet identity changes nothing of another
  # capture's analysis (tests/hostile/test_identity.py, identity_attack.py).
  if(TARGET ibscope-gen)
    add_test(NAME hostile.identity
             COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/hostile/test_identity.py
                     --ibscope ${CMAKE_BINARY_DIR}/bin/ibscope
                     --gen ${CMAKE_BINARY_DIR}/bin/ibscope-gen)
    set_tests_properties(hostile.identity PROPERTIES TIMEOUT 120)
  endif()
  # ibscope merge on hostile reports: memory bounded, every member's type
  # checked, a report given twice refused, numbers and times at their limits
  # written back, strings escaped (tests/hostile/test_reports.py).
  foreach(group memory keys twice numbers zero bom written times strings hosts)
    add_test(NAME hostile.reports.${group}
             COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/hostile/test_reports.py
                     --ibscope ${CMAKE_BINARY_DIR}/bin/ibscope --source-dir ${PROJECT_SOURCE_DIR}
                     --max-rss-mib ${IBSCOPE_HOSTILE_RSS} ${group})
    set_tests_properties(hostile.reports.${group} PROPERTIES TIMEOUT 600)
  endforeach()
  # Outputs: no capture overwritten, no report that lies (signals, full disks,
  # write errors, aliasing, protected files, stale temporaries), names made safe,
  # compressed and raw ERF inputs.
  foreach(group alias dup signals fulldisk names edges formats protected targets stale writes)
    add_test(NAME hostile.outputs.${group}
             COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/hostile/test_outputs.py
                     --ibscope ${CMAKE_BINARY_DIR}/bin/ibscope --source-dir ${PROJECT_SOURCE_DIR}
                     ${group})
    set_tests_properties(hostile.outputs.${group} PROPERTIES TIMEOUT 600 SKIP_RETURN_CODE 77)
  endforeach()
  # An address-space limit makes malloc fail; the sanitizers need far more
  # address space than any such limit allows.
  if(NOT IBSCOPE_SANITIZE)
    add_test(NAME hostile.outputs.oom
             COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/hostile/test_outputs.py
                     --ibscope ${CMAKE_BINARY_DIR}/bin/ibscope --source-dir ${PROJECT_SOURCE_DIR}
                     oom)
    set_tests_properties(hostile.outputs.oom PROPERTIES TIMEOUT 600)
  endif()
endif()
