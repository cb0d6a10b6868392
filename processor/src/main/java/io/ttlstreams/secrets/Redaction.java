package io.ttlstreams.secrets;

import java.util.regex.Pattern;

/**
 * Removes credentials from text meant for people: the user info of every URL, so {@code http://admin:pw@connect:8083}
 * and {@code mongodb://app:pw@mongo:27017/db} become {@code http://***@connect:8083} and
 * {@code mongodb://***@mongo:27017/db}.
 *
 * <p>The user info of a URL is everything between {@code ://} and the last {@code @} before the next {@code /} or line
 * break. That is how URL parsers split an authority, and it also covers passwords written with unescaped {@code @},
 * {@code :}, {@code #} or spaces. When in doubt it removes more: in {@code "mongodb://u:p@h", "x": "a@b"} everything
 * up to {@code a@} goes, which costs a little readability and never a password. The user name goes with the password:
 * it is often a token itself.
 */
public final class Redaction {

    /** What replaces the user info. */
    public static final String MASK = "***";

    private static final Pattern USER_INFO = Pattern.compile("([A-Za-z][A-Za-z0-9+.-]*://)[^/\\r\\n]*@");

    private Redaction() {}

    /** {@code text} with the user info of every URL in it masked; {@code null} stays {@code null}. */
    public static String redact(String text) {
        if (text == null || !text.contains("://")) {
            return text;
        }
        return USER_INFO.matcher(text).replaceAll("$1" + MASK + "@");
    }
}
