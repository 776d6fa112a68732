# House rules checked on the source tree (tests/style/).
find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  # No function over 80 lines, the generator and the tests included.
  add_test(NAME style.function_length
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/style/function_length.py
                   ${PROJECT_SOURCE_DIR})
  # Every .c and .h as .clang-format lays it out (with clang-format 14, which
  # the layout is set with; skipped with another version or none).
  add_test(NAME style.format
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/style/format_check.py
                   ${PROJECT_SOURCE_DIR})
  set_tests_properties(style.format PROPERTIES SKIP_RETURN_CODE 77)
  # The layers of docs/architecture.md: every include of the core, the plugin
  # and the analyzer's folders, and no circle of calls among core/engine's files.
  add_test(NAME style.layers
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/style/layers.py
                   ${PROJECT_SOURCE_DIR} --core-lib $<TARGET_FILE:ibscope_core> --nm ${CMAKE_NM})
  set_tests_properties(style.layers PROPERTIES LABELS quick)
  # Every table of the report's shape in rs_objects[] (so --list-report-keys
  # and docs.lists see it), and a details table for every finding kind.
  add_test(NAME style.report_tables
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/style/report_tables.py
                   ${PROJECT_SOURCE_DIR})
  set_tests_properties(style.report_tables PROPERTIES LABELS quick)
endif()
