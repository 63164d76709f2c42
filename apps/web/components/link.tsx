"use client";
// eslint-disable-next-line @typescript-eslint/no-restricted-imports -- the one wrapper of next/link
import NextLink from "next/link";
import { useRouter } from "next/navigation";
import type { ComponentProps } from "react";

/**
 * next/link that prefetches a page when the operator reaches for its link (pointer over it, focus,
 * touch), not when the link scrolls into view: the panel's pages are dynamic, so a prefetch brings
 * only their shell, and a first load of the dashboard made one for every link of the header and
 * every app card (about 10 kB on a page under 160). `prefetch={false}` turns it off altogether.
 */
export default function Link({ prefetch, onMouseEnter, onFocus, onTouchStart, ...props }: ComponentProps<typeof NextLink>) {
  const router = useRouter();
  const href = typeof props.href === "string" && props.href.startsWith("/") && prefetch !== false ? props.href : null;
  const reach = () => {
    if (href !== null) router.prefetch(href);
  };
  return (
    <NextLink
      {...props}
      prefetch={false}
      onMouseEnter={(e) => {
        reach();
        onMouseEnter?.(e);
      }}
      onFocus={(e) => {
        reach();
        onFocus?.(e);
      }}
      onTouchStart={(e) => {
        reach();
        onTouchStart?.(e);
      }}
    />
  );
}
