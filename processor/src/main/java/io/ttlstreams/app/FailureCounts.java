package io.ttlstreams.app;

/**
 * Failures of a running processor so far, for the status line.
 *
 * @param threadsReplaced      stream threads that died and were replaced
 * @param punctuationFailures  punctuations that threw
 * @param recordsDeadLettered  records whose processing threw and which the exception handler dead-lettered (the
 *                             processors' own dead letters are counted in their metrics)
 */
record FailureCounts(long threadsReplaced, long punctuationFailures, long recordsDeadLettered) {}
