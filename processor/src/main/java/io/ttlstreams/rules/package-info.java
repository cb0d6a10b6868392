/**
 * TTL semantics as pure functions of a document: which rule applies to a namespace, when a document expires and why.
 *
 * <p>The package mirrors three products so that users can bring their expectations along:
 * <ul>
 *   <li>{@link io.ttlstreams.rules.TtlMode#FIELD field mode} behaves like a MongoDB TTL index (a date field plus
 *       {@code expireAfterSeconds}), optionally reading numbers as epoch instants as DynamoDB does;</li>
 *   <li>{@link io.ttlstreams.rules.TtlMode#LAST_MODIFIED last-modified mode} behaves like Cosmos DB's TTL, with an
 *       optional per-document override;</li>
 *   <li>like Firestore, the latest value wins: {@link io.ttlstreams.rules.TtlRules#evaluate} looks only at the current
 *       document, so every change event recomputes the deadline.</li>
 * </ul>
 *
 * <p>Nothing here knows about Kafka or about how document keys are encoded; the processor feeds change events in and
 * turns {@link io.ttlstreams.rules.ExpiryDecision decisions} into schedule entries and delete commands.
 */
package io.ttlstreams.rules;
