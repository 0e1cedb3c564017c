{
  "targets": [
    {
      "target_name": "malloc",
      "sources": ["malloc.c"]
    }
  ]
}
