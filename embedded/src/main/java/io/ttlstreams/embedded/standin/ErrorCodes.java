package io.ttlstreams.embedded.standin;

/** MongoDB's error codes the stand-in answers with (MongoDB's {@code error_codes.yml}, and its assertion ids). */
final class ErrorCodes {

    static final int BAD_VALUE = 2;
    static final int FAILED_TO_PARSE = 9;
    static final int TYPE_MISMATCH = 14;
    static final int ILLEGAL_OPERATION = 20;
    static final int NAMESPACE_NOT_FOUND = 26;
    static final int NO_MATCHING_DOCUMENT = 47;
    static final int NAMESPACE_EXISTS = 48;
    static final int IMMUTABLE_FIELD = 66;
    static final int INVALID_OPTIONS = 72;
    static final int INVALID_NAMESPACE = 73;
    static final int NOT_IMPLEMENTED = 238;
    static final int INVALID_RESUME_TOKEN = 260;
    static final int CHANGE_STREAM_FATAL_ERROR = 280;
    static final int CHANGE_STREAM_HISTORY_LOST = 286;
    static final int INTERRUPTED_AT_SHUTDOWN = 11600;
    /** "A pipeline stage specification object must contain exactly one field." */
    static final int STAGE_NOT_ONE_FIELD = 40323;
    /** "Unrecognized pipeline stage name". */
    static final int UNRECOGNIZED_STAGE = 40324;
    /** An unknown field in a command or stage specification ("BSON field ... is an unknown field"). */
    static final int UNKNOWN_FIELD = 40415;
    /** More than one of resumeAfter, startAfter and startAtOperationTime. */
    static final int CONFLICTING_RESUME_OPTIONS = 40674;

    private ErrorCodes() {}
}
