# End-to-end tests of the ibscope command (tests/analyzer/test_analyzer.py),
# one ctest test per group.  Included by tests/CMakeLists.txt.
find_package(Python3 COMPONENTS Interpreter)
if(TARGET ibscope AND Python3_Interpreter_FOUND)
  foreach(group badinput stdin merge convert json csv failon width exhaustion golden)
    add_test(NAME analyzer.${group}
             COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/analyzer/test_analyzer.py
                     --ibscope ${CMAKE_BINARY_DIR}/bin/ibscope
                     --gen ${CMAKE_BINARY_DIR}/bin/ibscope-gen
                     --source-dir ${PROJECT_SOURCE_DIR}
                     ${group})
    set_tests_properties(analyzer.${group} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 900)
  endforeach()
endif()
