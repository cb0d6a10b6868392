package io.ttlstreams.embedded.standin;

import java.util.Map;
import java.util.Set;

/** MongoDB's error codes the stand-in answers with (MongoDB's {@code error_codes.yml}, and its assertion ids). */
final class ErrorCodes {

    static final int BAD_VALUE = 2;
    static final int FAILED_TO_PARSE = 9;
    static final int UNAUTHORIZED = 13;
    static final int TYPE_MISMATCH = 14;
    static final int ILLEGAL_OPERATION = 20;
    static final int NAMESPACE_NOT_FOUND = 26;
    static final int CURSOR_NOT_FOUND = 43;
    static final int NO_MATCHING_DOCUMENT = 47;
    static final int NAMESPACE_EXISTS = 48;
    static final int COMMAND_NOT_FOUND = 59;
    static final int IMMUTABLE_FIELD = 66;
    static final int INVALID_OPTIONS = 72;
    static final int INVALID_NAMESPACE = 73;
    static final int NOT_IMPLEMENTED = 238;
    static final int INVALID_RESUME_TOKEN = 260;
    static final int FAIL_POINT_SET_FAILED = 266;
    static final int CHANGE_STREAM_FATAL_ERROR = 280;
    static final int CHANGE_STREAM_HISTORY_LOST = 286;
    static final int BSON_OBJECT_TOO_LARGE = 10334;
    static final int NOT_WRITABLE_PRIMARY = 10107;
    static final int INTERRUPTED_AT_SHUTDOWN = 11600;
    static final int INTERRUPTED_DUE_TO_REPL_STATE_CHANGE = 11602;
    /** The assertion MongoDB fails a command with after the fail point closed its connection. */
    static final int FAIL_COMMAND_CLOSED_CONNECTION = 50985;
    /** "A pipeline stage specification object must contain exactly one field." */
    static final int STAGE_NOT_ONE_FIELD = 40323;
    /** "Unrecognized pipeline stage name". */
    static final int UNRECOGNIZED_STAGE = 40324;
    /** An unknown field in a command or stage specification ("BSON field ... is an unknown field"). */
    static final int UNKNOWN_FIELD = 40415;
    /** More than one of resumeAfter, startAfter and startAtOperationTime. */
    static final int CONFLICTING_RESUME_OPTIONS = 40674;

    /**
     * error_codes.yml's category RetriableError, as far as a client can receive it: HostUnreachable, HostNotFound,
     * NetworkTimeout, ShutdownInProgress, ReadConcernMajorityNotAvailableYet, PrimarySteppedDown, ExceededTimeLimit,
     * SocketException, NotWritablePrimary, InterruptedAtShutdown, InterruptedDueToReplStateChange,
     * NotPrimaryNoSecondaryOk, NotPrimaryOrSecondary (the retryable-writes specification's list, plus 134).
     */
    static final Set<Integer> RETRIABLE = Set.of(
            6,
            7,
            89,
            91,
            134,
            189,
            262,
            9001,
            NOT_WRITABLE_PRIMARY,
            INTERRUPTED_AT_SHUTDOWN,
            INTERRUPTED_DUE_TO_REPL_STATE_CHANGE,
            13435,
            13436);

    /**
     * Besides {@link #RETRIABLE}, what MongoDB labels a resumable change-stream error (error_labels.cpp): the
     * NeedRetargettingError category (StaleEpoch, StaleConfig), RetryChangeStream, FailedToSatisfyReadPreference.
     */
    static final Set<Integer> RESUMABLE_ALSO = Set.of(150, 13388, 234, 133);

    /** The names of the codes a client may name in a fail point, and of the stand-in's own. */
    private static final Map<Integer, String> NAMES = Map.ofEntries(
            Map.entry(1, "InternalError"),
            Map.entry(BAD_VALUE, "BadValue"),
            Map.entry(6, "HostUnreachable"),
            Map.entry(7, "HostNotFound"),
            Map.entry(FAILED_TO_PARSE, "FailedToParse"),
            Map.entry(UNAUTHORIZED, "Unauthorized"),
            Map.entry(TYPE_MISMATCH, "TypeMismatch"),
            Map.entry(18, "AuthenticationFailed"),
            Map.entry(ILLEGAL_OPERATION, "IllegalOperation"),
            Map.entry(NAMESPACE_NOT_FOUND, "NamespaceNotFound"),
            Map.entry(CURSOR_NOT_FOUND, "CursorNotFound"),
            Map.entry(NO_MATCHING_DOCUMENT, "NoMatchingDocument"),
            Map.entry(NAMESPACE_EXISTS, "NamespaceExists"),
            Map.entry(50, "MaxTimeMSExpired"),
            Map.entry(COMMAND_NOT_FOUND, "CommandNotFound"),
            Map.entry(64, "WriteConcernTimeout"),
            Map.entry(IMMUTABLE_FIELD, "ImmutableField"),
            Map.entry(INVALID_OPTIONS, "InvalidOptions"),
            Map.entry(INVALID_NAMESPACE, "InvalidNamespace"),
            Map.entry(89, "NetworkTimeout"),
            Map.entry(91, "ShutdownInProgress"),
            Map.entry(100, "UnsatisfiableWriteConcern"),
            Map.entry(112, "WriteConflict"),
            Map.entry(121, "DocumentValidationFailure"),
            Map.entry(133, "FailedToSatisfyReadPreference"),
            Map.entry(134, "ReadConcernMajorityNotAvailableYet"),
            Map.entry(150, "StaleEpoch"),
            Map.entry(189, "PrimarySteppedDown"),
            Map.entry(234, "RetryChangeStream"),
            Map.entry(NOT_IMPLEMENTED, "NotImplemented"),
            Map.entry(INVALID_RESUME_TOKEN, "InvalidResumeToken"),
            Map.entry(262, "ExceededTimeLimit"),
            Map.entry(FAIL_POINT_SET_FAILED, "FailPointSetFailed"),
            Map.entry(CHANGE_STREAM_FATAL_ERROR, "ChangeStreamFatalError"),
            Map.entry(CHANGE_STREAM_HISTORY_LOST, "ChangeStreamHistoryLost"),
            Map.entry(391, "ReauthenticationRequired"),
            Map.entry(9001, "SocketException"),
            Map.entry(NOT_WRITABLE_PRIMARY, "NotWritablePrimary"),
            Map.entry(BSON_OBJECT_TOO_LARGE, "BSONObjectTooLarge"),
            Map.entry(11000, "DuplicateKey"),
            Map.entry(INTERRUPTED_AT_SHUTDOWN, "InterruptedAtShutdown"),
            Map.entry(INTERRUPTED_DUE_TO_REPL_STATE_CHANGE, "InterruptedDueToReplStateChange"),
            Map.entry(13388, "StaleConfig"),
            Map.entry(13435, "NotPrimaryNoSecondaryOk"),
            Map.entry(13436, "NotPrimaryOrSecondary"));

    /** The {@code codeName} MongoDB answers with for {@code code}: {@code Location<code>} for an assertion id. */
    static String name(int code) {
        return NAMES.getOrDefault(code, "Location" + code);
    }

    private ErrorCodes() {}
}
