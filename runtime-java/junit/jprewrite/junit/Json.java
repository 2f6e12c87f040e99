package jprewrite.junit;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads JSON into maps, lists, strings, {@code Long}/{@code Double}, booleans and null: enough for
 * the profile files baselines are stored in, without a dependency. Iterative (an explicit stack),
 * because profiles of deep recursion nest thousands of levels.
 */
final class Json {
    private final String text;
    private int pos;

    private Json(String text) {
        this.text = text;
    }

    /** The value in {@code text}; IllegalArgumentException (with the offset) when it is not JSON. */
    static Object parse(String text) {
        Json p = new Json(text);
        Object v = p.document();
        p.skipSpace();
        if (p.pos != text.length()) {
            throw p.error("text after the end of the document");
        }
        return v;
    }

    private Object document() {
        ArrayList<Object> stack = new ArrayList<Object>();   // containers being filled
        ArrayList<String> keys = new ArrayList<String>();    // pending key of each map on the stack
        Object result = null;
        boolean done = false;
        while (!done) {
            Object container = stack.isEmpty() ? null : stack.get(stack.size() - 1);
            skipSpace();
            if (container != null && peek() == (container instanceof Map ? '}' : ']')) {
                pos++;
                stack.remove(stack.size() - 1);
                keys.remove(keys.size() - 1);
                Object finished = container;
                done = add(stack, keys, finished);
                result = finished;
                continue;
            }
            if (container != null && !isEmpty(container)) {
                expect(',');
                skipSpace();
            }
            if (container instanceof Map) {
                keys.set(keys.size() - 1, string());
                skipSpace();
                expect(':');
                skipSpace();
            }
            char c = peek();
            if (c == '{' || c == '[') {
                pos++;
                stack.add(c == '{' ? new LinkedHashMap<String, Object>() : new ArrayList<Object>());
                keys.add(null);
                continue;
            }
            Object v = scalar();
            done = add(stack, keys, v);
            result = v;
        }
        return result;
    }

    private static boolean isEmpty(Object container) {
        return container instanceof Map ? ((Map<?, ?>) container).isEmpty() : ((List<?>) container).isEmpty();
    }

    /** Put {@code v} into the innermost container; true when it was the whole document. */
    @SuppressWarnings("unchecked")
    private static boolean add(ArrayList<Object> stack, ArrayList<String> keys, Object v) {
        if (stack.isEmpty()) {
            return true;
        }
        Object container = stack.get(stack.size() - 1);
        if (container instanceof Map) {
            ((Map<String, Object>) container).put(keys.get(keys.size() - 1), v);
        } else {
            ((List<Object>) container).add(v);
        }
        return false;
    }

    private Object scalar() {
        char c = peek();
        if (c == '"') {
            return string();
        }
        if (text.startsWith("true", pos)) {
            pos += 4;
            return Boolean.TRUE;
        }
        if (text.startsWith("false", pos)) {
            pos += 5;
            return Boolean.FALSE;
        }
        if (text.startsWith("null", pos)) {
            pos += 4;
            return null;
        }
        int start = pos;
        while (pos < text.length() && "+-0123456789.eE".indexOf(text.charAt(pos)) >= 0) {
            pos++;
        }
        String n = text.substring(start, pos);
        if (n.isEmpty()) {
            throw error("unexpected character");
        }
        try {
            return n.indexOf('.') < 0 && n.indexOf('e') < 0 && n.indexOf('E') < 0 ? (Object) Long.valueOf(n)
                    : (Object) Double.valueOf(n);
        } catch (NumberFormatException e) {
            throw error("bad number " + n);
        }
    }

    private String string() {
        expect('"');
        StringBuilder sb = new StringBuilder();
        while (true) {
            if (pos >= text.length()) {
                throw error("unterminated string");
            }
            char c = text.charAt(pos++);
            if (c == '"') {
                return sb.toString();
            }
            if (c != '\\') {
                sb.append(c);
                continue;
            }
            char e = pos < text.length() ? text.charAt(pos++) : '?';
            switch (e) {
                case 'n': sb.append('\n'); break;
                case 'r': sb.append('\r'); break;
                case 't': sb.append('\t'); break;
                case 'b': sb.append('\b'); break;
                case 'f': sb.append('\f'); break;
                case 'u':
                    if (pos + 4 > text.length()) {
                        throw error("bad \\u escape");
                    }
                    sb.append((char) Integer.parseInt(text.substring(pos, pos + 4), 16));
                    pos += 4;
                    break;
                default: sb.append(e); break;
            }
        }
    }

    private char peek() {
        if (pos >= text.length()) {
            throw error("unexpected end");
        }
        return text.charAt(pos);
    }

    private void expect(char c) {
        if (peek() != c) {
            throw error("expected '" + c + "'");
        }
        pos++;
    }

    private void skipSpace() {
        while (pos < text.length() && Character.isWhitespace(text.charAt(pos))) {
            pos++;
        }
    }

    private IllegalArgumentException error(String what) {
        return new IllegalArgumentException("not a JSON document: " + what + " at offset " + pos);
    }
}
