package io.clockwork.opentelemetry;

import io.opentelemetry.sdk.trace.data.LinkData;
import io.opentelemetry.sdk.trace.data.SpanData;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Renders exported spans as an indented tree, parents before children, with each span's kind and links. */
final class SpanTree {

    private SpanTree() {
    }

    static String render(List<SpanData> spans) {
        Map<String, SpanData> byId = new HashMap<>();
        spans.forEach(s -> byId.put(s.getSpanId(), s));
        Map<String, List<SpanData>> children = new HashMap<>();
        List<SpanData> roots = new ArrayList<>();
        for (SpanData s : spans) {
            if (byId.containsKey(s.getParentSpanId())) {
                children.computeIfAbsent(s.getParentSpanId(), k -> new ArrayList<>()).add(s);
            } else {
                roots.add(s);
            }
        }
        Comparator<SpanData> byStart = Comparator.comparingLong(SpanData::getStartEpochNanos);
        roots.sort(byStart);
        children.values().forEach(l -> l.sort(byStart));
        StringBuilder out = new StringBuilder();
        Set<String> seen = new HashSet<>();
        for (SpanData root : roots) {
            append(out, root, "", children, byId, seen);
        }
        return out.toString();
    }

    private static void append(StringBuilder out, SpanData s, String indent, Map<String, List<SpanData>> children,
                               Map<String, SpanData> byId, Set<String> seen) {
        if (!seen.add(s.getSpanId())) {
            return;
        }
        out.append(indent).append(s.getName()).append(" [").append(s.getKind()).append("]");
        Object op = s.getAttributes().asMap().entrySet().stream()
                .filter(e -> e.getKey().getKey().equals("messaging.operation.type")).map(Map.Entry::getValue)
                .findFirst().orElse(null);
        if (op != null) {
            out.append(" messaging.operation.type=").append(op);
        }
        if (!s.getLinks().isEmpty()) {
            List<String> linked = new ArrayList<>();
            for (LinkData l : s.getLinks()) {
                SpanData target = byId.get(l.getSpanContext().getSpanId());
                linked.add(target == null ? l.getSpanContext().getSpanId() : target.getName());
            }
            out.append(" links -> ").append(linked);
        }
        out.append('\n');
        for (SpanData c : children.getOrDefault(s.getSpanId(), List.of())) {
            append(out, c, indent + "  ", children, byId, seen);
        }
    }
}
