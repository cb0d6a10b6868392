/**
 * Keeping credentials out of everything ttl-streams prints or logs.
 *
 * <p>{@link io.ttlstreams.secrets.Redaction#redact} is the one redaction function (URL user info, the user name of
 * the MongoDB driver's authentication errors; for a throwable, every message of its chain). It is applied where text
 * can carry a credential on its way out: the exceptions the Kafka Connect client raises (which quote Connect's answers,
 * and Connect echoes {@code connection.uri}), the command line's error lines, the configuration's validation errors,
 * and every log message and logged throwable, through {@link io.ttlstreams.secrets.RedactingLogEventFactory}, which
 * {@code log4j2.component.properties} installs for all loggers whatever the logging configuration file.
 * {@link io.ttlstreams.secrets.BasicCredentials} carries HTTP Basic credentials apart from the URL they may have come
 * in, with a password that never prints.
 */
package io.ttlstreams.secrets;
