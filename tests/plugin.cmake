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
  # A test-only plugin that calls the conversation filters as the GUI does
  # (plugin.conversations), built beside the plugin's folder, never installed.
  get_target_property(IBSCOPE_PLUGIN_OUT ibscope_plugin LIBRARY_OUTPUT_DIRECTORY)
  string(REPLACE "${CMAKE_BINARY_DIR}/plugins" "${CMAKE_BINARY_DIR}/tests/probe-plugins"
         IBSCOPE_PROBE_OUT "${IBSCOPE_PLUGIN_OUT}")
  add_library(ibscope_convfilter_probe MODULE ${CMAKE_CURRENT_SOURCE_DIR}/plugin/convfilter_probe.c)
  set_target_properties(ibscope_convfilter_probe PROPERTIES PREFIX "" C_VISIBILITY_PRESET hidden
                        LIBRARY_OUTPUT_DIRECTORY ${IBSCOPE_PROBE_OUT})
  target_include_directories(ibscope_convfilter_probe PRIVATE ${PROJECT_SOURCE_DIR}/plugin)
  target_compile_definitions(ibscope_convfilter_probe PRIVATE
    $<$<BOOL:${HAVE_IBSCOPE_SSIZE_T}>:HAVE_SSIZE_T>)
  target_link_libraries(ibscope_convfilter_probe PRIVATE PkgConfig::WIRESHARK)
  foreach(check load fields golden stats agreement passes forward tree tunnel transport wire encap builtin port treefields crc index prefs forecast conversations endpoints convfilter qptable qpfilter kernel rc wireaudit congestion settingstree)
    set(extra)
    if(check MATCHES "agreement|passes|forward|tree|builtin|crc|index|conversations|endpoints|convfilter|qptable|qpfilter|transport|wire")
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
