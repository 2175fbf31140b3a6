print("inbox-assets")
