package ser;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.gson.Gson;
import com.thoughtworks.xstream.XStream;
import java.util.*;

public class SerMain {
    public static class Item {
        private String name; private int qty; private List<String> tags = new ArrayList<>();
        public Item() { }
        public Item(String n, int q, String... t) { name = n; qty = q; tags.addAll(Arrays.asList(t)); }
        public String getName() { return name; } public void setName(String n) { name = n; }
        public int getQty() { return qty; } public void setQty(int q) { qty = q; }
        public List<String> getTags() { return tags; } public void setTags(List<String> t) { tags = t; }
        @com.fasterxml.jackson.annotation.JsonIgnore public boolean isBig() { return qty > 10; }
        public String summary(int width) { return name + ":" + qty; }
    }
    public static class Order { public String id; public Item[] items; public Map<String, Integer> counts = new TreeMap<>(); }

    public static void main(String[] a) throws Exception {
        Order o = new Order(); o.id = "o1"; o.items = new Item[] { new Item("pen", 3, "a"), new Item("ink", 12, "b", "c") };
        o.counts.put("x", 1); o.counts.put("y", 2);
        ObjectMapper m = new ObjectMapper();
        String json = m.writeValueAsString(o);
        System.out.println("jackson " + json);
        Order back = m.readValue(json, Order.class);
        System.out.println("jackson back " + back.items[1].getName() + " " + back.items[1].getTags() + " " + m.writeValueAsString(back.items[0]));
        Gson g = new Gson();
        String gj = g.toJson(o);
        System.out.println("gson " + gj);
        System.out.println("gson back " + g.fromJson(gj, Order.class).items[0].getQty());
        XStream x = new XStream();
        x.allowTypes(new Class[] { Order.class, Item.class });
        String xml = x.toXML(o);
        System.out.println("xstream " + xml.replaceAll("\\s+", " "));
        System.out.println("xstream back " + ((Order) x.fromXML(xml)).counts);
    }
}
