/**
 * Read-back of documents whose delete command went unconfirmed: {@link io.ttlstreams.readback.DocumentReadBack} looks
 * them up in MongoDB by {@code _id}, batched per namespace, on a thread of its own, and hands each answer to the
 * asking task's {@link io.ttlstreams.readback.ReadBackInbox}, which the task's punctuator drains, so that the schedule
 * follows what the document actually holds rather than what an event claimed.
 */
package io.ttlstreams.readback;
