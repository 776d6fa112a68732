# Oracle tests: the core's decode against Wireshark's own InfiniBand dissector,
# on the bundled samples (which must also be free of malformed frames) and on
# the real captures (IBSCOPE_REAL_CAPTURES_DIR) when that folder exists.
find_package(Python3 COMPONENTS Interpreter REQUIRED)
find_program(IBSCOPE_TSHARK tshark)
if(NOT IBSCOPE_TSHARK)
  set(IBSCOPE_TSHARK tshark) # oracle.py skips (exit 77) outside CI
endif()

set(IBSCOPE_ORACLE ${CMAKE_CURRENT_SOURCE_DIR}/oracle/oracle.py)
file(GLOB IBSCOPE_SAMPLE_CAPTURES ${CMAKE_SOURCE_DIR}/samples/captures/*.pcap)
list(FILTER IBSCOPE_SAMPLE_CAPTURES EXCLUDE REGEX "malformed")
if(IBSCOPE_SAMPLE_CAPTURES AND TARGET ibscope)
  add_test(NAME oracle.samples
           COMMAND Python3::Interpreter ${IBSCOPE_ORACLE} $<TARGET_FILE:ibscope>
                   ${IBSCOPE_TSHARK} ${IBSCOPE_SAMPLE_CAPTURES} --well-formed)
  set_tests_properties(oracle.samples PROPERTIES SKIP_RETURN_CODE 77)
endif()

if(IBSCOPE_REAL_CAPTURES AND TARGET ibscope)
  add_test(NAME oracle.real_captures
           COMMAND Python3::Interpreter ${IBSCOPE_ORACLE} $<TARGET_FILE:ibscope>
                   ${IBSCOPE_TSHARK} ${IBSCOPE_REAL_CAPTURES})
  set_tests_properties(oracle.real_captures PROPERTIES SKIP_RETURN_CODE 77)
else()
  message(STATUS "ibscope: ${IBSCOPE_REAL_CAPTURES_DIR} not found, real-capture oracle test left out")
endif()
