package io.ttlstreams.embedded.standin;

/** MongoDB's error codes the stand-in's change streams answer with (MongoDB's {@code error_codes.yml}). */
final class ErrorCodes {

    static final int ILLEGAL_OPERATION = 20;
    static final int INVALID_OPTIONS = 72;
    static final int INVALID_NAMESPACE = 73;
    static final int INVALID_RESUME_TOKEN = 260;
    static final int CHANGE_STREAM_FATAL_ERROR = 280;
    static final int CHANGE_STREAM_HISTORY_LOST = 286;

    private ErrorCodes() {}
}
