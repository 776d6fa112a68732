# Pages checked against what they describe (tests/docs/).
find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  add_test(NAME docs.source_layout
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/docs/source_layout.py
                   ${PROJECT_SOURCE_DIR})
endif()
