# Plugin tests: tshark with ibscope.so on every sample (tests/plugin/plugin_test.py).
# Left out when the plugin is not built (IBSCOPE_BUILD_PLUGIN=OFF, no
# wireshark-dev) and under IBSCOPE_SANITIZE, where tshark itself is not
# sanitized and a sanitized core would not load into it.
if(TARGET ibscope_plugin AND NOT IBSCOPE_SANITIZE)
  find_package(Python3 COMPONENTS Interpreter REQUIRED)
  set(IBSCOPE_PLUGIN_TEST ${CMAKE_CURRENT_SOURCE_DIR}/plugin/plugin_test.py)
  set(IBSCOPE_PLUGIN_EXTRA)
  if(EXISTS ${IBSCOPE_REAL_CAPTURES_DIR})
    set(IBSCOPE_PLUGIN_EXTRA --captures ${IBSCOPE_REAL_CAPTURES_DIR})
  endif()
  foreach(check load fields golden stats agreement passes forward tree tunnel builtin port treefields crc index prefs forecast)
    set(extra)
    if(check MATCHES "agreement|passes|forward|tree|builtin|crc|index")
      set(extra ${IBSCOPE_PLUGIN_EXTRA})
    endif()
    add_test(NAME plugin.${check}
             COMMAND Python3::Interpreter ${IBSCOPE_PLUGIN_TEST} ${check} ${CMAKE_BINARY_DIR}
                     ${CMAKE_SOURCE_DIR} ${extra})
    set_tests_properties(plugin.${check} PROPERTIES SKIP_RETURN_CODE 77)
    if(NOT check STREQUAL "load")
      set_tests_properties(plugin.${check} PROPERTIES DEPENDS plugin.load)
    endif()
  endforeach()
  set_tests_properties(plugin.passes PROPERTIES TIMEOUT 900)
  # Mutated samples (editcap -E) through tshark with the plugin; the long run
  # (20 seeds, some under valgrind) is in docs/hardening.md.
  add_test(NAME plugin.under_fire
           COMMAND Python3::Interpreter ${CMAKE_CURRENT_SOURCE_DIR}/plugin/under_fire.py
                   ${CMAKE_BINARY_DIR} ${CMAKE_SOURCE_DIR} --seeds 3)
  set_tests_properties(plugin.under_fire PROPERTIES DEPENDS plugin.load TIMEOUT 900)
endif()
