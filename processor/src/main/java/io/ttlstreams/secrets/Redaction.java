package io.ttlstreams.secrets;

import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Removes credentials from text meant for people: the user info of every URL, so {@code http://admin:pw@connect:8083}
 * and {@code mongodb://app:pw@mongo:27017/db} become {@code http://***@connect:8083} and
 * {@code mongodb://***@mongo:27017/db}, and the user name the MongoDB driver quotes in its errors ({@code
 * MongoCredential{mechanism=SCRAM-SHA-256, userName='***', ...}}).
 *
 * <p>The user info of a URL is everything between {@code ://} and the last {@code @} before the line ends or the next
 * URL's {@code ://} starts. That covers passwords written with unescaped {@code @}, {@code :}, {@code /}, {@code #} or
 * spaces, in URLs that no parser accepts; a parser that splits at the first {@code /} would take {@code
 * mongodb://u:pa/ss@h} for host {@code u}, and a {@code /} is common in Base64 passwords. When in doubt it removes
 * more: in {@code "mongodb://u:p@h", "x": "a@b"} everything up to {@code a@} goes, and so does the host of {@code
 * http://h/x@y}, which costs a little readability and never a password. The user name goes with the password: it is
 * often a token itself. (A password holding {@code ://} itself is masked from there on only.)
 *
 * <p>It also masks the value of every {@code key=value} whose key names a password or a secret, as JAAS lines and
 * properties carry them: {@code ScramLoginModule required username="ttl-processor" password="***";}, {@code
 * ssl.keystore.password=***}, {@code user_admin="***"} (a server's PLAIN users), {@code clientSecret="***"}. Kafka's
 * own {@code [hidden]} is left as it is.
 */
public final class Redaction {

    /** What replaces the user info. */
    public static final String MASK = "***";

    /**
     * A scheme (not the tail of a longer word), then anything up to the last {@code @} on the line that is not past
     * the next {@code ://}.
     */
    private static final Pattern USER_INFO =
            Pattern.compile("(?<![A-Za-z0-9+.-])([A-Za-z][A-Za-z0-9+.-]*://)(?:(?!://)[^\\r\\n])*@");

    /**
     * The user name in {@code MongoCredential.toString()}, which the driver's authentication errors quote ({@code
     * userName='app', source='admin'}): up to the {@code ', source='} that follows it, or else the next quote.
     */
    private static final Pattern MONGO_USER_NAME =
            Pattern.compile("(userName=')(?:[^\\r\\n]*?(?=', source=')|[^'\\r\\n]*(?='))");

    /**
     * A {@code key=value} whose key ends in {@code password} or {@code secret} (any case), or is a PLAIN user
     * ({@code user_<name>}); the value quoted (JAAS) or up to the next space, {@code ;} or {@code ,}, unless Kafka
     * hid it already.
     */
    private static final Pattern SECRET_ASSIGNMENT = Pattern.compile(
            "(?i)(?<![A-Za-z0-9_.-])((?:[A-Za-z0-9_.-]*(?:password|secret)|user_[A-Za-z0-9_.-]+)\\s*=\\s*)"
                    + "(?!\\[hidden]|<hidden>)(\"(?:[^\"\\\\\\r\\n]|\\\\.)*\"?|'[^'\\r\\n]*'?|[^\\s;,\"'}\\]]+)");

    private Redaction() {}

    /**
     * {@code text} with the user info of every URL and every MongoDB credential's user name in it masked; {@code null}
     * stays {@code null}.
     */
    public static String redact(String text) {
        if (text == null) {
            return null;
        }
        String redacted = text;
        if (redacted.contains("://")) {
            redacted = USER_INFO.matcher(redacted).replaceAll("$1" + MASK + "@");
        }
        if (redacted.contains("userName='")) {
            redacted = MONGO_USER_NAME.matcher(redacted).replaceAll("$1" + MASK);
        }
        if (redacted.contains("=")) {
            redacted = SECRET_ASSIGNMENT.matcher(redacted).replaceAll(secret -> {
                String value = secret.group(2);
                char quote = value.charAt(0);
                String masked = quote == '"' || quote == '\'' ? quote + MASK + quote : MASK;
                return Matcher.quoteReplacement(secret.group(1) + masked);
            });
        }
        return redacted;
    }

    /**
     * {@code throwable} itself when no message in it, its causes or its suppressed exceptions carries a credential;
     * else a copy of the whole chain with every message {@link #redact(String) redacted}. The copy keeps the stack
     * traces, and prints ({@code toString}, {@code printStackTrace}) with the original class names, but its class is
     * {@link RedactedException}. {@code null} stays {@code null}.
     */
    public static Throwable redact(Throwable throwable) {
        if (throwable == null || !needsRedaction(throwable, identitySet())) {
            return throwable;
        }
        return copy(throwable, identitySet());
    }

    private static boolean needsRedaction(Throwable throwable, Set<Throwable> seen) {
        if (!seen.add(throwable)) {
            return false;
        }
        String message = throwable.getMessage();
        if (!Objects.equals(message, redact(message))) {
            return true;
        }
        if (throwable.getCause() != null && needsRedaction(throwable.getCause(), seen)) {
            return true;
        }
        for (Throwable suppressed : throwable.getSuppressed()) {
            if (needsRedaction(suppressed, seen)) {
                return true;
            }
        }
        return false;
    }

    private static Set<Throwable> identitySet() {
        return Collections.newSetFromMap(new IdentityHashMap<>());
    }

    /** A chain can be made circular with {@code initCause}: a throwable met again ends the copied chain there. */
    private static RedactedException copy(Throwable throwable, Set<Throwable> copied) {
        copied.add(throwable);
        Throwable cause = throwable.getCause();
        RedactedException copy = new RedactedException(
                throwable.getClass().getName(),
                redact(throwable.getMessage()),
                cause == null || copied.contains(cause) ? null : copy(cause, copied),
                throwable.getStackTrace());
        for (Throwable suppressed : throwable.getSuppressed()) {
            if (!copied.contains(suppressed)) {
                copy.addSuppressed(copy(suppressed, copied));
            }
        }
        return copy;
    }

    /**
     * A throwable whose message was {@link #redact(Throwable) redacted}: it prints as the original did, with the
     * original's class name, message (redacted) and stack trace.
     */
    public static final class RedactedException extends RuntimeException {

        private static final long serialVersionUID = 1L;

        private final String originalClassName;

        RedactedException(String originalClassName, String message, Throwable cause, StackTraceElement[] stackTrace) {
            super(message, cause);
            this.originalClassName = originalClassName;
            setStackTrace(stackTrace);
        }

        @Override
        public String toString() {
            String message = getLocalizedMessage();
            return message == null ? originalClassName : originalClassName + ": " + message;
        }
    }
}
